import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BudgetLedger, ChatResult, LedgerState } from '@chi/spec';
import { checkChatResult } from '@chi/spec/test';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { createConcurrencyLimiter } from '../src/concurrency-limiter';
import { createFileLedger, type FileLedger } from '../src/file-ledger';
import { foldLedger } from '../src/ledger-book';
import type { InspectableLedger } from '../src/ledger-core';
import { createMemoryLedger } from '../src/memory-ledger';
import { createOpenRouterModel } from '../src/openrouter-model';
import { requestInputBytes, reservationUsd } from '../src/reservation';
import { type Fault, startLoopbackOpenRouter } from './loopback-openrouter';

const REQUESTS = 2000;
const CONCURRENCY = 16;
const SEED = 20_260_901;
const CAP = 100;
const PRICE = { inputUsdPerToken: 1e-6, outputUsdPerToken: 4e-6, requestUsd: 0 };

// Every fault the loopback server can inject except an overcharge (which stops the ledger at
// once and is tested on its own). Costs stay below any reservation (which is above 0.0004 USD).
const cost = fc.integer({ min: 0, max: 300 }).map((micro) => micro / 1e6);
const faultArbitrary: fc.Arbitrary<Fault> = fc.oneof(
  { weight: 220, arbitrary: cost.map((costUsd): Fault => ({ kind: 'ok', costUsd })) },
  {
    weight: 16,
    arbitrary: cost.map(
      (costUsd): Fault => ({ kind: 'ok', costUsd, content: 'partial', finishReason: 'length' }),
    ),
  },
  { weight: 12, arbitrary: cost.map((costUsd): Fault => ({ kind: 'ok', costUsd, content: '' })) },
  { weight: 16, arbitrary: fc.constant<Fault>({ kind: 'ok', noUsage: true }) },
  {
    weight: 20,
    arbitrary: fc.constantFrom<Fault>(
      { kind: 'status', status: 429, retryAfter: '0' },
      { kind: 'status', status: 429 },
    ),
  },
  {
    weight: 28,
    arbitrary: fc.constantFrom<Fault>(
      { kind: 'status', status: 500 },
      { kind: 'status', status: 502 },
      { kind: 'status', status: 503 },
    ),
  },
  {
    weight: 8,
    arbitrary: fc.constantFrom<Fault>(
      { kind: 'status', status: 400 },
      { kind: 'status', status: 402 },
    ),
  },
  { weight: 20, arbitrary: fc.constant<Fault>({ kind: 'reset' }) },
  { weight: 1, arbitrary: fc.constant<Fault>({ kind: 'hang' }) },
  { weight: 12, arbitrary: fc.constant<Fault>({ kind: 'error_in_200' }) },
  { weight: 8, arbitrary: fc.constant<Fault>({ kind: 'finish_error' }) },
  { weight: 12, arbitrary: fc.constant<Fault>({ kind: 'malformed' }) },
);
const SCRIPT: readonly (readonly Fault[])[] = fc.sample(
  fc.array(faultArbitrary, { minLength: 3, maxLength: 3 }),
  {
    seed: SEED,
    numRuns: REQUESTS,
  },
);

const messagesOf = (index: number) => [{ role: 'user' as const, content: `soak request ${index}` }];
const reservationOf = (index: number) =>
  reservationUsd({
    inputBytes: requestInputBytes(messagesOf(index)),
    maxOutputTokens: CAP,
    safetyPrice: PRICE,
    marginRatio: 0,
  });

/**
 * What the protocol's rules commit for one request with an unlimited budget, worked out from
 * the script alone: costs as reported, 0 for 4xx and 429, the whole reservation for every
 * uncertain outcome; 429/5xx/resets retried at most twice.
 */
function expectedCommitUsd(index: number): number {
  const reservation = reservationOf(index);
  let total = 0;
  for (const fault of SCRIPT[index]!) {
    if (fault.kind === 'ok')
      return total + (fault.noUsage === true ? reservation : (fault.costUsd ?? 0));
    if (fault.kind === 'status') {
      if (fault.status === 429) continue;
      if (fault.status < 500) return total;
      total += reservation;
      continue;
    }
    if (fault.kind === 'reset') {
      total += reservation;
      continue;
    }
    return total + (fault.kind === 'finish_error' ? 0 : reservation);
  }
  return total;
}

const folder = await mkdtemp(join(tmpdir(), 'chi-soak-'));
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

/** Wraps a ledger so that the state after every operation is checked against the ceiling. */
function watched(inner: InspectableLedger, seen: LedgerState[]): BudgetLedger {
  const observe = async <T>(value: T): Promise<T> => {
    seen.push(await inner.state());
    return value;
  };
  return {
    specificationVersion: 'chi-ledger-v1',
    reserve: async (args) => observe(await inner.reserve(args)),
    settle: async (id, args) => observe(await inner.settle(id, args)),
    retain: async (id, reason) => observe(await inner.retain(id, reason)),
    stop: (reason) => inner.stop(reason),
    state: () => inner.state(),
  };
}

describe.each([
  ['memory ledger', async (ceilingUsd: number) => createMemoryLedger({ ceilingUsd })],
  [
    'file ledger',
    async (ceilingUsd: number) =>
      createFileLedger({ path: join(folder, 'ledger.jsonl'), ceilingUsd }),
  ],
])('soak: %s, 2000 requests at concurrency 16 with random faults', (_name, makeLedger) => {
  it('never commits past the ceiling and logs every attempt exactly once', async () => {
    const triesByRequest = new Map<number, number>();
    const server = await startLoopbackOpenRouter({
      onCompletion: (request) => {
        const content =
          (request.body?.messages as { content: string }[] | undefined)?.[0]?.content ?? '';
        const index = Number(content.replace('soak request ', ''));
        const tryIndex = triesByRequest.get(index) ?? 0;
        triesByRequest.set(index, tryIndex + 1);
        return SCRIPT[index]![tryIndex]!;
      },
    });
    const expectedUsd = Array.from({ length: REQUESTS }, (_, index) =>
      expectedCommitUsd(index),
    ).reduce((a, b) => a + b, 0);
    // Just above the expected spend: the ceiling binds near the end, while requests are in flight.
    const ceilingUsd = Math.round((expectedUsd + 3 * reservationOf(0)) * 1e9) / 1e9;
    const inner = await makeLedger(ceilingUsd);
    const seen: LedgerState[] = [];
    const model = createOpenRouterModel({
      model: 'moonshotai/kimi-k3',
      providers: ['moonshotai/mxfp4'],
      apiKey: 'sk-or-v1-FAKE-SOAK-KEY-1234567890',
      baseURL: server.baseURL,
      ledger: watched(inner, seen),
      safetyPrice: PRICE,
      reservationMargin: 0,
      maxOutputTokens: CAP,
      // Generous, so that only the injected hangs time out even on a loaded machine (a timeout of
      // an ordinary request would change what the script says must happen).
      deadlineMs: 3000,
      // The deadline covers a request's tries and waits: waits short enough that a retry always
      // fits, as the script assumes (the sleep is instant anyway).
      backoffMs: [10, 10],
      sleep: async () => {},
      generationLookup: { attempts: 2, intervalMs: 0 },
    });
    const limiter = createConcurrencyLimiter(CONCURRENCY);
    let results: ChatResult[];
    try {
      results = await Promise.all(
        Array.from({ length: REQUESTS }, (_, index) =>
          limiter.run(() =>
            model.generate({ requestId: `soak-${index}`, messages: messagesOf(index) }),
          ),
        ),
      );
    } finally {
      await server.close();
    }

    // The ceiling held at every step.
    expect(seen.length).toBeGreaterThan(REQUESTS);
    const worst = Math.max(...seen.map((state) => state.committedUsd));
    expect(worst).toBeLessThanOrEqual(ceilingUsd);
    const final = await inner.state();
    expect(final.openReservations).toBe(0);
    expect(final.stopped?.kind).toBe('ceiling');

    // Every try that was sent reached the server exactly once, and had exactly one reservation.
    const entries = await inner.entries();
    const reservations = entries.filter((entry) => entry.kind === 'reserve');
    expect(new Set(reservations.map((entry) => entry.attemptId)).size).toBe(reservations.length);
    let sentTries = 0;
    for (const [index, result] of results.entries()) {
      expect(checkChatResult(result, { model, request: { requestId: `soak-${index}` } })).toEqual(
        [],
      );
      const sent = result.tries.filter((entry) => entry.failure !== 'budget_refused');
      sentTries += sent.length;
      // A timed-out try may be cut before the server reads it: at most once there, exactly once here.
      const received = triesByRequest.get(index) ?? 0;
      const timedOut = sent.some((entry) => entry.failure === 'timeout');
      if (timedOut) expect([sent.length - 1, sent.length]).toContain(received);
      else expect(received).toBe(sent.length);
      expect(
        reservations
          .filter((entry) => entry.attemptId.startsWith(`soak-${index}#`))
          .map((entry) => entry.attemptId),
      ).toEqual(sent.map((entry) => `soak-${index}#${entry.tryIndex}`));
    }
    expect(reservations).toHaveLength(sentTries);
    // Each reservation closed exactly once (the fold refuses anything else), and the results'
    // charges add up to what the ledger committed.
    expect(foldLedger(entries)).toEqual(final);
    const charged = results.reduce((sum, result) => sum + result.chargedUsd, 0);
    expect(charged).toBeCloseTo(final.settledUsd + final.retainedUsd, 9);

    // The run mostly completed, and what was refused was never sent.
    const refused = results.filter((result) => result.failure === 'budget_refused');
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.length).toBeLessThan(REQUESTS / 10);
    const failures = new Set(results.map((result) => result.failure));
    for (const failure of [
      'none',
      'http_retryable',
      'connection_retryable',
      'timeout',
      'truncated',
      'empty_response',
      'invalid_response',
      'http_fatal',
      'budget_refused',
    ]) {
      expect(failures, failure).toContain(failure);
    }

    if ('path' in inner && 'close' in inner) {
      const file = inner as unknown as FileLedger;
      const text = await readFile(file.path, 'utf8');
      expect(text.trimEnd().split('\n')).toHaveLength(entries.length);
      expect(text).not.toContain('sk-or-v1-FAKE-SOAK-KEY');
      await file.close();
    }
  });
});
