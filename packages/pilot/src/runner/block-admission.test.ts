import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { requestInputBytes, reservationUsd } from '@chi/openrouter';
import { runFolderPaths } from '@chi/run/internal';
import type { ChatMessage, LedgerEntry, Price, RunPlan } from '@chi/spec';
import { describe, expect, it } from 'vitest';
import { testFolder } from '../__fixtures__/test-folder';
import { runPilot } from '../pilot';
import { planRun } from '../run-folder/run-create';
import { createScriptedModel } from '../scripted/scripted-systems';
import { defaultOfflineSettings, openAiCompatibleSystemSpec } from '../settings';

// A priced local model through the real transport and the run's file ledger: an injected `fetch`
// answers as an OpenAI-compatible endpoint (no network) and reports, as `usage.cost`, exactly what
// the transport reserved for the try. Input is free, so a request's reservation does not depend on
// its notebook and the block admission's worst case is exact: with no retries a block costs
// exactly its worst case, and a ceiling worth c blocks affords floor(c) whole blocks (4 planned).

const MODEL = 'local/priced';
const PRICE: Price = { inputUsdPerToken: 0, outputUsdPerToken: 1e-6, requestUsd: 0 };
const MARGIN = 0.25;
/** Two replicates of the memory experiment at one load: 4 blocks of 2 requests. */
const BLOCKS = 4;

function settingsFor(blocksWorth: number, concurrency: number, maxRetries = 0) {
  const system = openAiCompatibleSystemSpec({
    model: MODEL,
    baseUrl: 'http://127.0.0.1:9/v1',
    safetyPrice: PRICE,
    apiKeyEnv: null,
  });
  const base = defaultOfflineSettings({
    systems: [system],
    replicates: 2,
    loads: [32],
    templates: ['memory'],
    resamples: 20,
    concurrency,
    maxRetries,
    reservationMargin: MARGIN,
    ceilingUsd: 0,
  });
  const plan = planRun({ settings: base }).plan;
  const perTryUsd = reservationUsd({
    inputBytes: 0,
    maxOutputTokens: system.maxOutputTokens,
    safetyPrice: PRICE,
    marginRatio: MARGIN,
  });
  const blockWorstUsd = (plan.requests.length / plan.blocks.length) * perTryUsd * (1 + maxRetries);
  return { settings: { ...base, ceilingUsd: blockWorstUsd * blocksWorth }, plan, blockWorstUsd };
}

/** The endpoint: a scripted answer, charged exactly the try's reservation. */
function pricedEndpoint(onRequest: (count: number) => void = () => {}) {
  const scripted = createScriptedModel('latest-wins');
  let count = 0;
  const fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    const body = (await request.json()) as { messages: ChatMessage[]; max_tokens: number };
    count += 1;
    onRequest(count);
    const result = await scripted.generate({ requestId: `r${count}`, messages: body.messages });
    const cost = reservationUsd({
      inputBytes: requestInputBytes(body.messages),
      maxOutputTokens: body.max_tokens,
      safetyPrice: PRICE,
      marginRatio: MARGIN,
    });
    return new Response(
      JSON.stringify({
        id: `gen-${count}`,
        object: 'chat.completion',
        created: 1788220800,
        model: MODEL,
        choices: [
          { index: 0, message: { role: 'assistant', content: result.text }, finish_reason: 'stop' },
        ],
        usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2, cost },
      }),
      { status: 200, headers: { 'content-type': 'application/json' } },
    );
  };
  return { fetch, requests: () => count };
}

interface RunFacts {
  readonly complete: Set<string>;
  /** Blocks that hold at least one ledger reservation. */
  readonly reservedFor: Set<string>;
  readonly reservedUsd: number;
}

function runFacts(runDir: string): RunFacts {
  const paths = runFolderPaths(runDir);
  const plan = JSON.parse(readFileSync(paths.plan, 'utf8')) as RunPlan;
  const blockOf = new Map(plan.requests.map((request) => [request.requestId, request.blockId]));
  const blocks = JSON.parse(readFileSync(paths.blocks, 'utf8')) as {
    blockId: string;
    status: string;
  }[];
  const reserves = readFileSync(paths.ledger, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as LedgerEntry)
    .filter((entry) => entry.kind === 'reserve');
  return {
    complete: new Set(
      blocks.filter((block) => block.status === 'complete').map((block) => block.blockId),
    ),
    reservedFor: new Set(
      reserves.map((entry) => blockOf.get(entry.attemptId.split('#')[0] as string) as string),
    ),
    reservedUsd: reserves.reduce((sum, entry) => sum + entry.amountUsd, 0),
  };
}

describe('block admission: a block starts only when the ceiling covers its whole worst case', () => {
  const cases = [1, 8, 64].flatMap((concurrency) =>
    [0.5, 1.5, 3.5].map((blocksWorth) => ({ concurrency, blocksWorth })),
  );
  it.each(cases)(
    'concurrency $concurrency, a ceiling of $blocksWorth blocks: floor of it complete, no reservation for any other block',
    async ({ concurrency, blocksWorth }) => {
      const runDir = join(testFolder('chi-admission-'), 'run');
      const { settings, plan } = settingsFor(blocksWorth, concurrency);
      expect(plan.blocks.length).toBe(BLOCKS);
      const endpoint = pricedEndpoint();
      const outcome = await runPilot({ settings, runDir, env: {}, fetch: endpoint.fetch });
      const affordable = Math.floor(blocksWorth);
      const facts = runFacts(runDir);
      expect(outcome.execution.completeBlocks).toBe(affordable);
      expect(facts.complete.size).toBe(affordable);
      // every reserved dollar went to a block that finished, and the first blocks in plan order
      expect([...facts.reservedFor].filter((block) => !facts.complete.has(block))).toEqual([]);
      expect([...facts.complete]).toEqual(
        plan.blocks.slice(0, affordable).map((block) => block.blockId),
      );
      expect(facts.reservedUsd).toBeLessThanOrEqual(settings.ceilingUsd + 1e-12);
      expect(outcome.exitCode).toBe(3);
      expect(outcome.execution.stop?.kind).toBe('ceiling');
      expect(outcome.execution.stop?.message).toContain(
        `allowed ${affordable} of ${BLOCKS} block(s)`,
      );
    },
  );

  it('counts every retry the transport may make: one try per request fits, the worst case does not', async () => {
    const runDir = join(testFolder('chi-admission-retries-'), 'run');
    // with 2 retries a block's worst case is 3 tries per request; 1.5 blocks of single tries is
    // half a block's worst case
    const { settings } = settingsFor(0.5, 8, 2);
    const endpoint = pricedEndpoint();
    const outcome = await runPilot({ settings, runDir, env: {}, fetch: endpoint.fetch });
    expect(endpoint.requests()).toBe(0);
    expect(outcome.execution.completeBlocks).toBe(0);
    expect(outcome.execution.stop?.message).toContain(`allowed 0 of ${BLOCKS} block(s)`);
  });

  it('a resumed run admits again with each block’s remaining worst case', async () => {
    const runDir = join(testFolder('chi-admission-resume-'), 'run');
    const { settings } = settingsFor(3.5, 1);
    const controller = new AbortController();
    // Interrupted while the third request (the second block's first) is in flight.
    const first = pricedEndpoint((count) => {
      if (count === 3) controller.abort();
    });
    const stopped = await runPilot({
      settings,
      runDir,
      env: {},
      fetch: first.fetch,
      signal: controller.signal,
    });
    expect(stopped.execution.stop?.kind).toBe('interrupted');
    expect(stopped.execution.completeBlocks).toBe(1);
    const second = pricedEndpoint();
    const resumed = await runPilot({ resumeDir: runDir, env: {}, fetch: second.fetch });
    expect(resumed.execution.completeBlocks).toBe(3);
    expect(second.requests()).toBe(3);
    const facts = runFacts(runDir);
    expect([...facts.reservedFor].filter((block) => !facts.complete.has(block))).toEqual([]);
    expect(resumed.execution.stop?.message).toContain(`allowed 3 of ${BLOCKS} block(s)`);
  });
});
