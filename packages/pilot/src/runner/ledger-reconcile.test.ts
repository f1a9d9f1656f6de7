import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ledgerContradictions, ledgerExpectation, reconcileLedger } from '@chi/run/internal';
import type { AttemptRecord, ChatResult, LedgerEntry, SystemSpec } from '@chi/spec';
import { afterAll, describe, expect, it } from 'vitest';
import { fakeOpenRouter } from '../__fixtures__/fake-openrouter';
import type { CliIo } from '../cli/cli-io';
import { runCli } from '../cli/cli-main';
import { scriptedSystemSpec } from '../scripted/scripted-systems';
import { openRouterSystemSpec } from '../settings';

const root = mkdtempSync(join(tmpdir(), 'chi-ledger-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const SHA = 'a'.repeat(64);
const AT = '2026-09-01T00:00:00.000Z';
const live: SystemSpec = openRouterSystemSpec({ id: 'kimi', model: 'm/kimi', providers: ['p'] });
const scripted: SystemSpec = scriptedSystemSpec('perfect');

function resolved(
  requestId: string,
  systemId: string,
  chargedUsd: number,
  tries: number,
): AttemptRecord {
  const result = {
    chargedUsd,
    tries: Array.from({ length: tries }, (_, tryIndex) => ({
      tryIndex,
      startedAt: AT,
      status: 200,
      failure: 'none',
      detail: null,
      waitMs: null,
      waitSource: null,
    })),
  } as unknown as ChatResult;
  return {
    kind: 'attempt',
    manifestSha256: SHA,
    attemptId: `${requestId}#1`,
    requestId,
    systemId,
    blockId: 'b',
    phase: 'after_response',
    at: AT,
    requestSha256: SHA,
    inputBytes: 1,
    result,
  };
}

function sent(requestId: string, systemId: string): AttemptRecord {
  return { ...resolved(requestId, systemId, 0, 0), phase: 'before_send', result: null };
}

const open: LedgerEntry = { kind: 'open', seq: 0, at: AT, ceilingUsd: 1 };
function reserve(seq: number, attemptId: string, amountUsd: number): LedgerEntry {
  return { kind: 'reserve', seq, at: AT, reservationId: `r${seq}`, attemptId, amountUsd };
}
function settle(seq: number, reservationId: string, chargedUsd: number): LedgerEntry {
  return { kind: 'settle', seq, at: AT, reservationId, chargedUsd, source: 'usage.cost' };
}

describe('ledgerContradictions', () => {
  const records = [sent('a', 'kimi'), resolved('a', 'kimi', 0.1, 2), sent('p', 'perfect')];
  const expectation = ledgerExpectation(records, [live, scripted]);

  it('expects a reservation per try of a live system, and the charges the results record', () => {
    expect(expectation).toEqual({
      reservedTries: ['a#0', 'a#1'],
      recordedUsd: 0.1,
      transportAttempts: 1,
      startedRequests: new Set(['a']),
    });
  });

  it('accepts a ledger that holds every reservation and at least the recorded spend', () => {
    const entries = [
      open,
      reserve(1, 'a#0', 0.2),
      settle(2, 'r1', 0),
      reserve(3, 'a#1', 0.2),
      settle(4, 'r3', 0.1),
    ];
    expect(ledgerContradictions(expectation, entries)).toEqual([]);
  });

  it('refuses a missing ledger, a rolled-back one and one whose spend is below the log', () => {
    expect(ledgerContradictions(expectation, null)[0]).toMatch(/missing or empty/);
    expect(ledgerContradictions(expectation, [open, reserve(1, 'a#0', 0.2)])).toEqual([
      'it lacks 1 reservations that attempts.jsonl proves were made (first: a#1): it was rolled back or cut short',
    ]);
    const cheap = [
      open,
      reserve(1, 'a#0', 0.2),
      settle(2, 'r1', 0),
      reserve(3, 'a#1', 0.2),
      settle(4, 'r3', 0.01),
    ];
    expect(ledgerContradictions(expectation, cheap)).toEqual([
      'it commits 0.01 USD, below the 0.1 USD that attempts.jsonl records as charged or retained',
    ]);
  });

  it('refuses a ledger with reservations for requests the attempt log never started (log emptied)', () => {
    const emptied = ledgerExpectation([], [live, scripted]);
    expect(
      ledgerContradictions(emptied, [open, reserve(1, 'a#0', 0.2), settle(2, 'r1', 0.1)]),
    ).toEqual([
      'it holds 1 reservations for requests attempts.jsonl never started (first: a#0): attempts.jsonl was emptied or cut',
    ]);
  });

  it('asks nothing of a run with only scripted systems', () => {
    expect(
      ledgerContradictions(ledgerExpectation([sent('p', 'perfect')], [scripted]), null),
    ).toEqual([]);
  });
});

const KEY = 'sk-or-v1-ledger-test-secret-0123456789';
const LIVE_SMALL = [
  '--models',
  'moonshotai/kimi-k3@moonshotai/mxfp4',
  '--replicates',
  '1',
  '--loads',
  '32',
  '--no-history',
  '--no-behavior',
  '--no-release',
];

function io(fetch: typeof globalThis.fetch): { io: CliIo; err: () => string } {
  let err = '';
  return {
    io: {
      stdout: { write: () => true },
      stderr: { write: (text: string) => (err += text) },
      env: { OPENROUTER_API_KEY: KEY },
      cwd: root,
      fetch,
    },
    err: () => err,
  };
}

describe('reconcileLedger', () => {
  const records = [sent('a', 'kimi'), resolved('a', 'kimi', 0.1, 2), sent('p', 'perfect')];
  async function* streamed(): AsyncGenerator<AttemptRecord> {
    for (const record of records) yield record;
  }
  const ledgerPath = join(root, 'reconcile-ledger.jsonl');
  const write = (entries: readonly LedgerEntry[]) =>
    writeFileSync(ledgerPath, entries.map((entry) => `${JSON.stringify(entry)}\n`).join(''));

  it('reads the attempt log as a stream (a resume never holds it) with the same answers as an array', async () => {
    write([
      open,
      reserve(1, 'a#0', 0.2),
      settle(2, 'r1', 0),
      reserve(3, 'a#1', 0.2),
      settle(4, 'r3', 0.1),
    ]);
    for (const source of [records, streamed()])
      await expect(
        reconcileLedger({ ledgerPath, records: source, systems: [live, scripted] }),
      ).resolves.toBeUndefined();
    write([open, reserve(1, 'a#0', 0.2)]);
    for (const source of [records, streamed()])
      await expect(
        reconcileLedger({ ledgerPath, records: source, systems: [live, scripted] }),
      ).rejects.toThrow(
        `${ledgerPath}: it lacks 1 reservations that attempts.jsonl proves were made (first: a#1)`,
      );
  });
});

describe('resume against a deleted or rolled-back ledger', () => {
  it('refuses with the damaged-run code, sends nothing, and never lets charges cross the ceiling', async () => {
    // each completion costs 0.1 USD; with every retry a memory block's worst case is about 1.90 USD
    // and a controls block's 1.16 USD: the 2.2 USD ceiling admits the first world's two blocks
    // (0.2 USD charged, then 0.2 + 1.16) but not the second world's memory block (0.4 + 1.90)
    const fake = fakeOpenRouter({ answerWith: 'capacity-keeper', costUsd: 0.1 });
    const out = join(root, 'ceiling');
    const first = io(fake.fetch);
    expect(
      await runCli(
        [
          'pilot',
          ...LIVE_SMALL,
          '--replicates',
          '2',
          '--ceiling-usd',
          '2.2',
          '--concurrency',
          '1',
          '--out',
          out,
        ],
        first.io,
      ),
    ).toBe(3);
    const sentBefore = fake.completions();
    const ledgerPath = join(out, 'ledger.jsonl');
    const ledgerText = readFileSync(ledgerPath, 'utf8');

    for (let cycle = 0; cycle < 3; cycle++) {
      rmSync(ledgerPath, { force: true });
      const again = io(fake.fetch);
      expect(await runCli(['pilot', '--resume', out], again.io)).toBe(5);
      expect(again.err()).toContain(`damaged run folder: ${ledgerPath}: it is missing or empty`);
      expect(fake.completions()).toBe(sentBefore);
    }
    // rolled back: only the lines before the last scored reservation
    const lines = ledgerText.trimEnd().split('\n');
    const lastReserve = lines
      .map((line) => JSON.parse(line) as LedgerEntry)
      .findLastIndex((entry) => entry.kind === 'reserve');
    writeFileSync(ledgerPath, `${lines.slice(0, lastReserve).join('\n')}\n`);
    const rolledBack = io(fake.fetch);
    expect(await runCli(['pilot', '--resume', out], rolledBack.io)).toBe(5);
    expect(rolledBack.err()).toContain('it was rolled back or cut short');
    expect(fake.completions()).toBe(sentBefore);
    // the intact ledger resumes (and still refuses to cross the ceiling)
    writeFileSync(ledgerPath, ledgerText);
    const intact = io(fake.fetch);
    expect(await runCli(['pilot', '--resume', out], intact.io)).toBe(3);
    const entries = readFileSync(ledgerPath, 'utf8')
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as LedgerEntry);
    const charged = entries.reduce(
      (sum, entry) => sum + (entry.kind === 'settle' ? entry.chargedUsd : 0),
      0,
    );
    expect(charged).toBeLessThanOrEqual(2.2);
  });
});
