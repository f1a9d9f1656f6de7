import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { createMemoryLedger, fetchCatalog } from '@chi/openrouter';
import {
  createRun,
  createScriptedModel,
  defaultOfflineSettings,
  executeRun,
  openRouterSystemSpec,
  prepareRun,
  scriptedSystemSpec,
} from '@chi/pilot';
import {
  DIVERGENCE_REGISTRY,
  divergenceManifestOf,
  divergenceSettings,
  finishRun,
  runSmokeChecks,
} from '@chi/pilot/internal';
import {
  buildCalibration,
  capacityCurve,
  chi,
  eimcSensitivity,
  failureTaxonomy,
  type LoadScores,
  meanWithinWorldCurve,
  parseProbeReply,
  parseTaskReply,
  scoreBehavior,
  scoreHistory,
  scoreMemoryProbes,
  traceBehaviorItems,
  traceHistoryDecisions,
  traceMemoryProbes,
} from '@chi/scoring';
import { decisionOf } from '@chi/scoring/internal';
import type {
  AttemptRecord,
  AxisProfile,
  BehavioralItemSet,
  BlockStatus,
  ChatModel,
  ClassifiedTaskAnswer,
  Decision,
  HistoryId,
  HistoryWorld,
  HumanCalibration,
  MemoryWorld,
} from '@chi/spec';
import {
  blindView,
  generateBehavioralItems,
  generateHistoryWorld,
  generateMemoryWorld,
  solveBehavioralItem,
} from '@chi/worlds';
import { SYNTHETIC_HUMAN_DATA_HEADER, syntheticHumanData } from '@chi/worlds/test';
import { afterAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { JSON_SCHEMA_REGISTRY } from '../../packages/spec/src/json-schemas';
import type { FailureLogEntry } from '../../packages/spec/src/run';

// Valid and invalid examples for every schema published in JSON_SCHEMA_REGISTRY. Each example
// names its registry key; the last test checks that every registered schema has at least one.
// A valid example must parse to itself; its invalid twin (one deliberate defect) must fail with an
// issue at the named path. Wherever possible the valid example is the real output of the code that
// produces that data (@chi/worlds, @chi/scoring, @chi/openrouter, @chi/pilot), so these tests also
// check that every producer writes what the schemas promise.

type RegistryKey = keyof typeof JSON_SCHEMA_REGISTRY;
type Path = readonly PropertyKey[];

/** Marks a field to delete in {@link put}. */
const REMOVE = Symbol('remove');

/** One deliberate defect: the value at path `at` becomes `to` (or is removed with {@link REMOVE}). */
interface Change {
  readonly at: Path;
  readonly to: unknown;
}

/** A deep copy of `value` with `change` applied (`at: []` replaces the whole value). */
function put(value: unknown, { at, to }: Change): unknown {
  if (at.length === 0) return to;
  const copy = structuredClone(value) as Record<PropertyKey, unknown>;
  let parent = copy;
  for (const step of at.slice(0, -1)) parent = parent[step] as Record<PropertyKey, unknown>;
  const last = at[at.length - 1] as PropertyKey;
  if (to === REMOVE) delete parent[last];
  else parent[last] = to;
  return copy;
}

/** For a defect reported on another field of the same object: the changed path's sibling `tail`. */
const beside =
  (...tail: PropertyKey[]) =>
  (at: Path): Path => [...at.slice(0, -1), ...tail];

interface ExampleSpec<T> {
  readonly key: RegistryKey;
  /** What the valid example is; after the semicolon, what is wrong with the invalid one. */
  readonly name: string;
  readonly valid: () => T;
  /** The defect that makes the invalid example, fixed or computed from the valid example. */
  readonly invalid: Change | ((valid: Awaited<T>) => Change);
  /** Where the invalid example must fail: the changed path by default. */
  readonly failsAt?: Path | ((changedAt: Path) => Path);
  /** A substring of the issue's message, for schemas with their own messages. */
  readonly message?: string;
}

interface Example {
  readonly key: RegistryKey;
  readonly name: string;
  readonly message: string | undefined;
  readonly build: () => Promise<{ valid: unknown; invalid: unknown; failsAt: Path }>;
}

function example<T>(spec: ExampleSpec<T>): Example {
  return {
    key: spec.key,
    name: spec.name,
    message: spec.message,
    build: async () => {
      const valid = await spec.valid();
      const change = typeof spec.invalid === 'function' ? spec.invalid(valid) : spec.invalid;
      const failsAt =
        spec.failsAt === undefined
          ? change.at
          : typeof spec.failsAt === 'function'
            ? spec.failsAt(change.at)
            : spec.failsAt;
      return { valid, invalid: put(valid, change), failsAt };
    },
  };
}

/** Computes `make()` on first use only (the pilot run is shared by many examples). */
function once<T>(make: () => T): () => T {
  let made: { value: T } | null = null;
  return () => {
    made ??= { value: make() };
    return made.value;
  };
}

function must<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`example fixture: no ${what}`);
  return value;
}

// ---------------------------------------------------------------------------------------------
// Literal examples (kept from the first version of this table).

const at = '2026-09-01T12:00:00.000Z';
const sha = 'a'.repeat(64);
const usage = {
  promptTokens: 812,
  completionTokens: 950,
  reasoningTokens: 700,
  totalTokens: 1762,
  costUsd: 0.00264,
};
const chatResult = {
  requestId: 'w0-mem-32-probe',
  evidenceClass: 'live_model',
  text: '[]',
  failure: 'none',
  failureDetail: null,
  finishReason: 'stop',
  truncated: false,
  requestedModel: 'moonshotai/kimi-k3',
  returnedModel: 'moonshotai/kimi-k3',
  returnedProvider: 'moonshotai/mxfp4',
  generationId: 'gen-1',
  usage,
  startedAt: at,
  finishedAt: at,
  latencyMs: 1200,
  tries: [
    {
      tryIndex: 0,
      startedAt: at,
      status: 200,
      failure: 'none',
      detail: null,
      waitMs: null,
      waitSource: null,
    },
  ],
  reservedUsd: 0.05,
  chargedUsd: 0.00264,
  redactedResponse: { id: 'gen-1' },
};
const step = (checkpoint: number, kind: string) => ({ checkpoint, kind, evidence: [] });
const steps = [
  step(0, 'baseline'),
  step(1, 'ingest'),
  step(2, 'maintenance'),
  step(3, 'maintenance'),
  step(4, 'correction'),
];
const answers = [
  ['unknown', 'unknown', 'unknown', 'unknown'],
  ['A', 'B', 'A', 'B'],
  ['A', 'B', 'A', 'B'],
  ['A', 'B', 'A', 'B'],
  ['B', 'A', 'B', 'A'],
];
const environment = (id: string) => ({
  id,
  subject: `supplier ${id}`,
  labels: { A: 'kestrel', B: 'plover' },
});
const literalHistoryWorld = {
  kind: 'history-world',
  generator: { name: '@chi/worlds', version: '0.0.0' },
  seed: 7,
  environments: ['e1', 'e2', 'e3', 'e4'].map(environment),
  counterbalance: 'A favors option A in environments 1 and 3',
  histories: { A: steps, B: steps, A2: steps },
  validAnswers: { A: answers, B: answers, A2: answers },
};
const manifest = {
  kind: 'run-manifest',
  schemaVersion: 1,
  protocol: 'cplom-longitudinal-pilot-2026-09-v1',
  createdAt: at,
  evidenceClass: 'scripted_baseline',
  systems: [
    {
      id: 'keeper',
      kind: 'scripted',
      model: 'capacity-keeper',
      providers: [],
      baseUrl: null,
      evidenceClass: 'scripted_baseline',
      reasoningEffort: null,
      maxOutputTokens: 4096,
      safetyPrice: null,
    },
  ],
  replicates: 2,
  worldSeeds: [1, 2],
  experiments: {
    memory: { loads: [32, 64], probesPerStratum: 8, batchSize: null, controlsAtLoad: 32 },
    history: { checkpoints: 5 },
    behavior: { items: 24 },
  },
  notebookCapBytes: 6000,
  ceilingUsd: 0,
  deadlineMs: 180_000,
  maxOutputTokens: 4096,
  concurrency: 8,
  retry: { maxRetries: 2, retryAfterCapMs: 30_000 },
  reservationMargin: 0.1,
  prompts: [{ name: 'memory-encode', version: '1', sha256: sha }],
  generators: [{ name: '@chi/worlds', version: '0.0.0' }],
  analysis: { seed: 20260901, resamples: 2000, level: 0.95, taus: [0.7, 0.8, 0.9] },
  failureRules: ['timeouts are model failures and are never retried'],
};
function divergenceManifest() {
  // the view of a divergence run's frozen manifest the analysis reads
  return divergenceManifestOf(
    prepareRun({
      settings: divergenceSettings(2, { systems: [scriptedSystemSpec('capacity-keeper')] }),
      experiments: DIVERGENCE_REGISTRY,
      now: () => new Date(at),
    }).frozen.manifest,
  );
}
const ledgerState = {
  ceilingUsd: 10,
  settledUsd: 1,
  retainedUsd: 0.5,
  openReservedUsd: 0.25,
  committedUsd: 1.75,
  remainingUsd: 8.25,
  openReservations: 1,
  stopped: null,
};
const calibration: HumanCalibration = {
  id: 'cal-synthetic-1',
  description: 'made-up reference values for tests',
  synthetic: true,
  axes: {
    R: { rule: { mu: 0.9, s: 0.1 } },
    M: { recall: { mu: 0.7, s: 0.1 } },
    C: { choice: { mu: 0.8, s: 0.2 } },
    A: { frame: { mu: 0.1, s: 0.1 } },
    I: { integrate: { mu: 0.75, s: 0.15 } },
  },
};
const profile: AxisProfile = {
  axes: {
    R: { rule: 0.85 },
    M: { recall: 0.62 },
    C: { choice: 0.8 },
    A: { frame: 0.25 },
    I: { integrate: 0.5 },
  },
};
const chisEntry = {
  kind: 'chis-entry',
  trajectoryId: 'w1/keeper/A',
  systemId: 'keeper',
  evidenceClass: 'scripted_baseline',
  worldSeed: 1,
  history: 'A',
  checkpoint: 2,
  condition: 'neutral',
  recordedAt: at,
  eventCount: 3,
  scheduledOperations: 3,
  elapsedWallMs: 1500,
  profile: { accuracy: 0.75, unknownRate: null },
  decisionVector: [0, 0.5, 1, null],
  chi: null,
  state: { sha256: sha, bytes: 5999, originalBytes: 7000, truncated: true },
  resources: {
    requests: 1,
    promptTokens: null,
    completionTokens: null,
    costUsd: 0,
    latencyMs: 3,
  },
};

// ---------------------------------------------------------------------------------------------
// Memory: real worlds, a model-like reply, and what @chi/scoring makes of it.

/**
 * A reply as a model might write it: prose around a fenced JSON answer set that gets most probes
 * right, abstains on some, names a neighbouring key's value on some, invents a value on some,
 * answers one probe twice, skips one and answers an ID that was never asked.
 */
function memoryReply(world: MemoryWorld): string {
  const entries: unknown[] = [];
  world.answerKey.forEach((entry, k) => {
    if (k === 5) return; // missing
    const neighbour = world.records.find((record) => record.key !== entry.key);
    if (k % 7 === 1) entries.push({ id: entry.id, value: null, source: null });
    else if (k % 7 === 2 && neighbour !== undefined)
      entries.push({ id: entry.id, value: neighbour.value, source: neighbour.source });
    else if (k % 7 === 3) entries.push({ id: entry.id, value: 'deadbeef', source: 'my-notes' });
    else entries.push({ id: entry.id, value: entry.expectedValue, source: entry.expectedSource });
  });
  entries.push(entries[0], { id: 'q-not-asked', value: '01234567', source: 'ledger' });
  return `Here are my answers.\n\`\`\`json\n${JSON.stringify(entries, null, 1)}\n\`\`\`\nDone.`;
}

function scoredMemoryWorld(seed: number, load: number) {
  const world = generateMemoryWorld({ seed, load });
  const parsed = parseProbeReply(
    memoryReply(world),
    world.probes.map((probe) => probe.id),
  );
  return {
    world,
    parsed,
    score: scoreMemoryProbes(world.answerKey, parsed),
    traces: traceMemoryProbes(world.records, world.answerKey, parsed),
  };
}

const memory = once(() => scoredMemoryWorld(20260901, 32));
const memoryGrid = once((): LoadScores[] =>
  [32, 64].map((load) => ({
    load,
    worlds: [11, 12, 13].map((seed) => scoredMemoryWorld(seed, load).score),
  })),
);
const curve = once(() => capacityCurve(memoryGrid()));

// ---------------------------------------------------------------------------------------------
// History: a real world, replies per history and checkpoint, decisions read as the report does.

function historyObservations(world: HistoryWorld) {
  const replies: { text: string; ids: string[] }[] = [];
  const grid = (history: HistoryId): Decision[][] =>
    world.validAnswers[history].map((valid, checkpoint) => {
      const said = valid.map((answer, e): string | null => {
        const labels = world.environments[e]?.labels ?? { A: 'a', B: 'b' };
        if (history === 'A2' && checkpoint === 2 && e === 0)
          return labels[answer === 'A' ? 'B' : 'A']; // the other shown label: a wrong option
        if (history === 'B' && checkpoint === 3 && e === 1) return null; // JSON null: unknown
        if (history === 'A' && checkpoint === 4 && e === 3) return 'both, probably';
        return answer === 'unknown' ? 'unknown' : labels[answer];
      });
      const ids = world.environments.map((env) => env.id);
      const text = JSON.stringify(ids.map((id, e) => ({ id, answer: said[e] })));
      replies.push({ text, ids });
      const parsed = parseTaskReply(text, ids);
      return world.environments.map((env, e) =>
        decisionOf(must(parsed.answers[e], 'history answer'), env.labels),
      );
    });
  const decisions = { A: grid('A'), B: grid('B'), A2: grid('A2') };
  return { replies, observations: { validAnswers: world.validAnswers, decisions } };
}

const history = once(() => {
  const world = generateHistoryWorld({ seed: 20260901 });
  const { replies, observations } = historyObservations(world);
  return {
    world,
    replies,
    score: scoreHistory(observations),
    traces: traceHistoryDecisions(observations),
  };
});

// ---------------------------------------------------------------------------------------------
// Behavior: real items, two half replies solved by the reference solver with a few mistakes.

function behaviorAnswers(itemSet: BehavioralItemSet): ClassifiedTaskAnswer[] {
  const answers: ClassifiedTaskAnswer[] = [];
  for (const half of [1, 2] as const) {
    const items = itemSet.items
      .filter((item) => item.half === half)
      .sort((a, b) => a.position - b.position);
    const said = items.map((item, k) => {
      const right = solveBehavioralItem(item);
      if (k === 0) return { id: item.id, answer: `${right}0` }; // a wrong exact answer or option
      if (k === 1) return { id: item.id, answer: null }; // abstained
      if (k === 2) return { id: item.id, answer: 'option-that-does-not-exist' };
      if (k === 3) return null; // missing
      if (item.answerFormat === 'choice' && k % 4 === 0) {
        const other = item.options?.find((option) => option !== right);
        return { id: item.id, answer: other ?? right };
      }
      return { id: item.id, answer: right };
    });
    const text = `My answers:\n${JSON.stringify(said.filter((entry) => entry !== null))}`;
    answers.push(
      ...parseTaskReply(
        text,
        items.map((item) => item.id),
      ).answers,
    );
  }
  return answers;
}

const behavior = once(() => {
  const itemSet = generateBehavioralItems({ seed: 20260901 });
  const answers = behaviorAnswers(itemSet);
  return {
    itemSet,
    answers,
    score: scoreBehavior(itemSet, answers),
    traces: traceBehaviorItems(itemSet, answers),
  };
});

/** Index of the first item of `set` matching `test`. */
function itemIndex(
  set: BehavioralItemSet,
  test: (item: BehavioralItemSet['items'][number]) => boolean,
): number {
  const index = set.items.findIndex(test);
  if (index === -1) throw new Error('example fixture: no such behavioral item');
  return index;
}

// ---------------------------------------------------------------------------------------------
// A real (tiny) scripted pilot run in a temporary folder, with injected failures: the memory
// encode request fails as infrastructure (so its probes are not sent: a dependency failure, and
// the block is incomplete) and one history update times out (a model failure).

const runRoot = mkdtempSync(join(tmpdir(), 'chi-spec-examples-'));
afterAll(() => rmSync(runRoot, { recursive: true, force: true }));

function jsonl<T>(path: string): T[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as T);
}
const readJson = (path: string): unknown => JSON.parse(readFileSync(path, 'utf8'));

const pilotRun = once(async () => {
  const settings = defaultOfflineSettings({
    systems: [scriptedSystemSpec('capacity-keeper')],
    replicates: 1,
    loads: [32],
  });
  const run = await createRun({ settings, runDir: join(runRoot, 'run') });
  const keeper = createScriptedModel('capacity-keeper');
  const flaky: ChatModel = {
    ...keeper,
    async generate(request) {
      const result = await keeper.generate(request);
      if (request.requestId.endsWith('.encode'))
        return {
          ...result,
          text: null,
          failure: 'http_retryable',
          failureDetail: 'HTTP 503 after 2 retries',
        };
      if (request.requestId.endsWith('.A.c2.update'))
        return { ...result, text: null, failure: 'timeout', failureDetail: 'deadline passed' };
      return result;
    },
  };
  await executeRun({ runDir: run.runDir, models: new Map([['capacity-keeper', flaky]]) });
  await finishRun(run.runDir, { release: false });
  const dir = run.runDir;
  const seed = must(run.frozen.manifest.worldSeeds[0], 'world seed');
  const index = jsonl<Record<string, unknown> & { requestSha256: string }>(
    join(dir, 'requests.jsonl'),
  );
  const entry = must(index[0], 'request index line');
  const { kind: _kind, ...fields } = entry;
  // the messages are the gzip canonical JSON named by the request's SHA-256 (layout 0.2)
  const messages = JSON.parse(
    gunzipSync(readFileSync(join(dir, 'payloads', `${entry.requestSha256}.json.gz`))).toString(
      'utf8',
    ),
  ) as unknown;
  return {
    manifest: readJson(join(dir, 'manifest.json')),
    plan: run.plan,
    requestIndexEntry: entry,
    rendered: { kind: 'rendered-request', ...fields, messages },
    attempts: jsonl<AttemptRecord>(join(dir, 'attempts.jsonl')),
    failures: jsonl<FailureLogEntry>(join(dir, 'failures.jsonl')),
    blocks: readJson(join(dir, 'blocks.json')) as BlockStatus[],
    status: readJson(join(dir, 'status.json')),
    chis: jsonl<unknown>(join(dir, 'chis', 'capacity-keeper.jsonl')),
    emptyNotebook: readJson(
      join(dir, 'notebooks', 'capacity-keeper', 'history', `w${seed}-A-c0.json`),
    ),
    notebook: readJson(join(dir, 'notebooks', 'capacity-keeper', 'history', `w${seed}-A-c1.json`)),
  };
});

const attempt = async (phase: AttemptRecord['phase']) =>
  must(
    (await pilotRun()).attempts.find((record) => record.phase === phase),
    `${phase} attempt`,
  );
const failure = async (category: FailureLogEntry['category']) =>
  must(
    (await pilotRun()).failures.find((entry) => entry.category === category),
    `${category} failure`,
  );
const block = async (status: BlockStatus['status']) =>
  must(
    (await pilotRun()).blocks.find((entry) => entry.status === status),
    `${status} block`,
  );
// ---------------------------------------------------------------------------------------------
// The catalog and a smoke check, through the real @chi/openrouter code over a fake `fetch` that
// answers with OpenRouter's API shapes (nothing leaves the process).

const KIMI = 'moonshotai/kimi-k3';

const fakeOpenRouter: typeof globalThis.fetch = async (input) => {
  const url = input instanceof Request ? input.url : String(input);
  const path = new URL(url).pathname.replace(/^\/api\/v1/, '');
  const json = (body: unknown) =>
    new Response(JSON.stringify(body), {
      status: 200,
      headers: { 'content-type': 'application/json', 'x-generation-id': 'gen-smoke-1' },
    });
  if (path === '/models')
    return json({
      data: [{ id: KIMI, pricing: { prompt: '0.0000006', completion: '0.0000025', request: '0' } }],
    });
  if (path === `/models/${KIMI}/endpoints`)
    return json({
      data: {
        id: KIMI,
        endpoints: [
          {
            provider_name: 'Moonshot AI',
            tag: 'moonshotai/mxfp4',
            quantization: 'mxfp4',
            max_completion_tokens: 16384,
            context_length: 262144,
            pricing: { prompt: '0.0000006', completion: '0.0000025' },
          },
          {
            provider_name: 'Moonshot AI',
            tag: 'moonshotai/int4',
            quantization: 'int4',
            max_completion_tokens: 8192,
            context_length: 131072,
            pricing: { prompt: '0.0000009', completion: '0.000003', request: '0.001' },
          },
        ],
      },
    });
  if (path === '/chat/completions')
    return json({
      id: 'gen-smoke-1',
      provider: 'Moonshot AI',
      model: KIMI,
      object: 'chat.completion',
      created: 1_788_000_000,
      choices: [
        {
          index: 0,
          finish_reason: 'stop',
          message: {
            role: 'assistant',
            content: '[{"id": "smoke-1", "value": "0a1b2c3d", "source": "src-smoke"}]',
          },
        },
      ],
      usage: { prompt_tokens: 310, completion_tokens: 24, total_tokens: 334, cost: 0.000246 },
    });
  return new Response('{"error":{"code":404}}', { status: 404 });
};

const catalog = once(() =>
  fetchCatalog({
    baseURL: 'https://openrouter.test/api/v1',
    fetch: fakeOpenRouter,
    models: [{ model: KIMI, providers: ['moonshotai/mxfp4'], maxOutputTokens: 4096 }],
  }),
);

const smoke = once(async () => {
  const system = openRouterSystemSpec({
    model: KIMI,
    providers: ['moonshotai/mxfp4'],
  });
  const results = await runSmokeChecks({
    systems: [{ ...system, baseUrl: 'https://openrouter.test/api/v1' }],
    apiKey: 'sk-or-v1-not-a-real-key',
    catalog: await catalog(),
    ceilingUsd: 1,
    fetch: fakeOpenRouter,
  });
  const result = must(results[0], 'smoke result');
  if (!result.passed) throw new Error(`example fixture: the smoke check failed: ${result.detail}`);
  return result;
});

/** Every kind of ledger line, from the real memory ledger: open, reserve, settle, retain, stop. */
const ledger = once(async () => {
  const book = createMemoryLedger({ ceilingUsd: 0.1 });
  const first = await book.reserve({
    attemptId: 'kimi-k3.memory.w1.n32.encode#1',
    amountUsd: 0.04,
  });
  if (first.ok)
    await book.settle(first.reservationId, { chargedUsd: 0.0123, source: 'usage.cost' });
  const second = await book.reserve({
    attemptId: 'kimi-k3.memory.w1.n32.probe.b0#1',
    amountUsd: 0.05,
  });
  if (second.ok) await book.retain(second.reservationId, 'timeout: the outcome is uncertain');
  await book.reserve({ attemptId: 'kimi-k3.history.w1.A.c1.update#1', amountUsd: 0.06 });
  const entries = await book.entries();
  const state = await book.state();
  if (state.stopped === null) throw new Error('example fixture: the ledger did not stop');
  const of = (kind: string) =>
    must(
      entries.find((entry) => entry.kind === kind),
      `${kind} entry`,
    );
  return { of, state };
});

// ---------------------------------------------------------------------------------------------
// The table.

const examples: readonly Example[] = [
  // Memory -----------------------------------------------------------------------------------
  example({
    key: 'memory-record',
    name: 'a record of a real world; authority 3',
    valid: () => must(memory().world.records[0], 'record'),
    invalid: { at: ['authority'], to: 3 },
    message: 'authority must be 1 or 2',
  }),
  example({
    key: 'memory-record',
    name: 'a record of a real world; a value with a non-hex character',
    valid: () => must(memory().world.records[1], 'record'),
    invalid: { at: ['value'], to: '0a1b2c3g' },
    message: 'expected 8 lowercase hex characters',
  }),
  example({
    key: 'memory-world',
    name: 'a real load-32 world; an upper-case record value',
    valid: () => memory().world,
    invalid: { at: ['records', 2, 'value'], to: '0A1B2C3D' },
    message: 'expected 8 lowercase hex characters',
  }),
  example({
    key: 'memory-world',
    name: 'a real load-32 world; a lure whose expected value is set but its source is not',
    valid: () => memory().world,
    invalid: (world) => ({
      at: [
        'answerKey',
        world.answerKey.findIndex((entry) => entry.stratum === 'f'),
        'expectedValue',
      ],
      to: '0a1b2c3d',
    }),
    failsAt: beside('expectedSource'),
    message: 'must both be null (unknown) or both be set',
  }),
  example({
    key: 'blind-memory-world',
    name: 'the blind view of a real world; a probe that reveals its stratum',
    valid: () => blindView(memory().world),
    invalid: (blind) => ({ at: ['probes', 0], to: { ...blind.probes[0], stratum: 'u' } }),
  }),
  example({
    key: 'probe-answer',
    name: "a real probe's correct answer; one null (only both null abstains)",
    valid: () => {
      const entry = must(
        memory().world.answerKey.find((e) => e.expectedValue !== null),
        'answerable probe',
      );
      return { id: entry.id, value: entry.expectedValue, source: entry.expectedSource };
    },
    invalid: { at: ['source'], to: null },
    failsAt: ['value'],
    message: 'value and source must both be null (abstention) or both be strings',
  }),
  example({
    key: 'parsed-probe-reply',
    name: 'a parsed model-like reply; a status typo',
    valid: () => memory().parsed,
    invalid: { at: ['answers', 0, 'status'], to: 'answerd' },
  }),
  example({
    key: 'parsed-probe-reply',
    name: 'a parsed model-like reply; a negative unrequested count',
    valid: () => memory().parsed,
    invalid: { at: ['unrequestedCount'], to: -1 },
  }),
  example({
    key: 'memory-score',
    name: 'the score of a real world; a NaN factor',
    valid: () => memory().score,
    invalid: { at: ['factors', 't'], to: Number.NaN },
  }),
  example({
    key: 'memory-score',
    name: 'the score of a real world; more passes than probes in a stratum',
    valid: () => memory().score,
    invalid: (score) => ({
      at: ['strata', 'r', 'numerator'],
      to: (score.strata.r?.denominator ?? 0) + 1,
    }),
    message: 'numerator cannot exceed denominator',
  }),
  example({
    key: 'memory-score',
    name: 'the score of a real world; a lure rate without a denominator',
    valid: () => memory().score,
    invalid: { at: ['lures', 'f'], to: { numerator: 0, denominator: 0, rate: 0 } },
    failsAt: ['lures', 'f', 'rate'],
    message: 'rate is null exactly when the denominator is 0',
  }),
  example({
    key: 'capacity-curve',
    name: 'a real two-load curve over three worlds; loads out of order',
    valid: () => curve(),
    invalid: (points) => ({ at: [], to: [...points].reverse() }),
    message: 'loads must be strictly increasing',
  }),
  example({
    key: 'capacity-curve',
    name: 'a real two-load curve; Q_M above 1',
    valid: () => curve(),
    invalid: { at: [1, 'qualityScore'], to: 1.2 },
  }),
  example({
    key: 'eimc-result',
    name: 'EIMC of a real curve, right-censored (the largest load passes); value null',
    valid: () => must(eimcSensitivity(curve(), [0.3])[0], 'EIMC'),
    invalid: (result) => ({ at: ['value'], to: result.value === null ? 32 : null }),
    message: 'value is null exactly when status is no_passing_load',
  }),
  example({
    key: 'eimc-result',
    name: 'EIMC of a real curve at a threshold no load reaches; 0 for "no passing load"',
    valid: () => must(eimcSensitivity(curve(), [1])[0], 'EIMC'),
    invalid: { at: ['value'], to: 0 },
  }),
  example({
    key: 'within-world-curve',
    name: 'a real mean-within-world curve; labelled as another estimand',
    valid: () => meanWithinWorldCurve(memoryGrid()),
    invalid: { at: [0, 'estimand'], to: 'quality_score' },
  }),
  example({
    key: 'within-world-curve',
    name: 'a real mean-within-world curve; a fractional world count',
    valid: () => meanWithinWorldCurve(memoryGrid()),
    invalid: { at: [1, 'worlds'], to: 2.5 },
  }),
  example({
    key: 'memory-probe-trace',
    name: 'a real probe trace; a winner that is not the first eligible record',
    valid: () => must(memory().traces[0], 'trace'),
    invalid: { at: ['winnerIndex'], to: 1 },
  }),
  example({
    key: 'memory-probe-trace',
    name: 'a real neighbour trace; the reason spelled "neighbor"',
    valid: () =>
      must(
        memory().traces.find((trace) => trace.reason === 'neighbour'),
        'neighbour trace',
      ),
    invalid: { at: ['reason'], to: 'neighbor' },
  }),
  example({
    key: 'memory-probe-trace',
    name: 'a real trace with its matched record; that record at authority 0',
    valid: () =>
      must(
        memory().traces.find((trace) => trace.matchedRecord !== null),
        'trace with a matched record',
      ),
    invalid: { at: ['matchedRecord', 'authority'], to: 0 },
    message: 'authority must be 1 or 2',
  }),
  example({
    key: 'failure-taxonomy',
    name: 'the real taxonomy of a scored world; a reason missing from the zero-filled total',
    valid: () => failureTaxonomy(memory().traces),
    invalid: { at: ['total', 'invented'], to: REMOVE },
  }),
  example({
    key: 'failure-taxonomy',
    name: 'the real taxonomy of a scored world; a fractional count',
    valid: () => failureTaxonomy(memory().traces),
    invalid: { at: ['byStratum', 's', 'correct'], to: 0.5 },
  }),

  // History ----------------------------------------------------------------------------------
  example({
    key: 'history-world',
    name: 'a literal world; three environments instead of four',
    valid: () => literalHistoryWorld,
    invalid: (world) => ({ at: ['environments'], to: world.environments.slice(0, 3) }),
  }),
  example({
    key: 'history-world',
    name: 'a real world; a checkpoint with answers for three environments only',
    valid: () => history().world,
    invalid: (world) => ({
      at: ['validAnswers', 'B', 4],
      to: world.validAnswers.B[4]?.slice(1),
    }),
  }),
  example({
    key: 'history-world',
    name: 'a real world; evidence of an unknown kind',
    valid: () => history().world,
    invalid: (world) => ({
      at: [
        'histories',
        'A',
        world.histories.A.findIndex((s) => s.evidence.length > 0),
        'evidence',
        0,
        'kind',
      ],
      to: 'rumour',
    }),
  }),
  example({
    key: 'parsed-task-reply',
    name: 'a parsed history reply; a status outside the answer statuses',
    valid: () => {
      const reply = must(history().replies[3], 'history reply');
      return parseTaskReply(reply.text, reply.ids);
    },
    invalid: { at: ['answers', 0, 'status'], to: 'skipped' },
  }),
  example({
    key: 'parsed-task-reply',
    name: 'a parsed behavioral half; a numeric answer (answers are kept as text)',
    valid: () => {
      const ids = behavior()
        .itemSet.items.filter((item) => item.half === 1)
        .map((item) => item.id);
      return parseTaskReply(`[{"id": "${ids[0]}", "answer": "42"}]`, ids);
    },
    invalid: { at: ['answers', 0, 'answer'], to: 42 },
  }),
  example({
    key: 'history-score',
    name: 'the real score of a world; a divergence outside [-1, 1]',
    valid: () => history().score,
    invalid: { at: ['checkpoints', 2, 'divergence', 'value'], to: 1.5 },
  }),
  example({
    key: 'history-score',
    name: 'the real score of a world; continuity from checkpoint 5',
    valid: () => history().score,
    invalid: { at: ['continuity', 'A', 'primary', 'fromCheckpoint'], to: 5 },
  }),
  example({
    key: 'history-score',
    name: 'the real score of a world; a decision coordinate of 0.25',
    valid: () => history().score,
    invalid: { at: ['checkpoints', 1, 'histories', 'B', 'vector', 'coordinates', 0], to: 0.25 },
  }),
  example({
    key: 'history-item-trace',
    name: 'a real decision trace; a decision outside A, B, unknown and invalid',
    valid: () => must(history().traces[0], 'trace'),
    invalid: { at: ['answer'], to: 'C' },
  }),
  example({
    key: 'history-item-trace',
    name: 'a real wrong-option trace; checkpoint 5',
    valid: () =>
      must(
        history().traces.find((trace) => trace.reason === 'wrong_option'),
        'wrong option trace',
      ),
    invalid: { at: ['checkpoint'], to: 5 },
  }),
  example({
    key: 'history-item-trace',
    name: 'a real invalid-decision trace; "invalid" as the warranted answer',
    valid: () =>
      must(
        history().traces.find((trace) => trace.reason === 'invalid_decision'),
        'invalid decision trace',
      ),
    invalid: { at: ['expected'], to: 'invalid' },
  }),

  // Behavior ---------------------------------------------------------------------------------
  example({
    key: 'behavioral-items',
    name: 'a real item set; a negative seed',
    valid: () => behavior().itemSet,
    invalid: { at: ['seed'], to: -1 },
  }),
  example({
    key: 'behavioral-items',
    name: 'a real item set; an R item relabelled C (facts of the wrong kind for the axis)',
    valid: () => behavior().itemSet,
    invalid: (set) => ({ at: ['items', itemIndex(set, (i) => i.axis === 'R'), 'axis'], to: 'C' }),
    failsAt: beside('facts', 'kind'),
    message: 'axis C expects facts of kind information-gap',
  }),
  example({
    key: 'behavioral-items',
    name: 'a real item set; an A item without its pair ID',
    valid: () => behavior().itemSet,
    invalid: (set) => ({
      at: ['items', itemIndex(set, (i) => i.axis === 'A'), 'pairId'],
      to: null,
    }),
    message: 'A items need a pairId and a frame',
  }),
  example({
    key: 'behavioral-items',
    name: "a real item set; an A item whose facts are in the other frame than the item's",
    valid: () => behavior().itemSet,
    invalid: (set) => {
      const k = itemIndex(set, (i) => i.axis === 'A');
      return {
        at: ['items', k, 'facts', 'frame'],
        to: set.items[k]?.frame === 'positive' ? 'negative' : 'positive',
      };
    },
    message: "must equal the item's frame",
  }),
  example({
    key: 'behavioral-items',
    name: 'a real item set; a choice item without options',
    valid: () => behavior().itemSet,
    invalid: (set) => ({
      at: ['items', itemIndex(set, (i) => i.answerFormat === 'choice'), 'options'],
      to: null,
    }),
    message: 'choice items list their options',
  }),
  example({
    key: 'behavioral-items',
    name: 'a real item set; a gamble that is certain (probability 100 %)',
    valid: () => behavior().itemSet,
    invalid: (set) => {
      const k = itemIndex(set, (i) => i.facts.kind === 'framed-choice');
      const facts = set.items[k]?.facts;
      const options = facts?.kind === 'framed-choice' ? facts.options : [];
      const g = options.findIndex((option) => option.kind === 'gamble');
      return { at: ['items', k, 'facts', 'options', g, 'probabilityPercent'], to: 100 };
    },
  }),
  example({
    key: 'behavioral-items',
    name: 'a real item set; an information-gap item with one candidate',
    valid: () => behavior().itemSet,
    invalid: (set) => {
      const k = itemIndex(set, (i) => i.facts.kind === 'information-gap');
      const facts = set.items[k]?.facts;
      const candidates = facts?.kind === 'information-gap' ? facts.candidates : [];
      return { at: ['items', k, 'facts', 'candidates'], to: candidates.slice(0, 1) };
    },
  }),
  example({
    key: 'behavioral-items',
    name: 'a real item set; a counterfactual operator with two operands',
    valid: () => behavior().itemSet,
    invalid: (set) => {
      const k = itemIndex(set, (i) => i.facts.kind === 'counterfactual-operator');
      const facts = set.items[k]?.facts;
      const operands = facts?.kind === 'counterfactual-operator' ? facts.operands : [];
      return { at: ['items', k, 'facts', 'operands'], to: operands.slice(0, 2) };
    },
  }),
  example({
    key: 'behavioral-items',
    name: 'a real item set; a symbol rule that rewrites to nothing',
    valid: () => behavior().itemSet,
    invalid: (set) => ({
      at: [
        'items',
        itemIndex(set, (i) => i.facts.kind === 'symbol-rewrite'),
        'facts',
        'rules',
        0,
        'to',
      ],
      to: '',
    }),
  }),
  example({
    key: 'behavioral-items',
    name: 'a real item set; a constraint with an unknown comparison',
    valid: () => behavior().itemSet,
    invalid: (set) => ({
      at: [
        'items',
        itemIndex(set, (i) => i.facts.kind === 'constrained-selection'),
        'facts',
        'constraints',
        0,
        'comparison',
      ],
      to: 'below',
    }),
  }),
  example({
    key: 'behavior-score',
    name: 'the real score of a world; the frame-change rate read as better-or-worse',
    valid: () => behavior().score,
    invalid: { at: ['frameInducedChange', 'interpretation'], to: 'lower is better' },
  }),
  example({
    key: 'behavior-score',
    name: 'the real score of a world; an axis missing',
    valid: () => behavior().score,
    invalid: { at: ['axes', 'I'], to: REMOVE },
  }),
  example({
    key: 'behavior-item-trace',
    name: 'a real item trace; half 3',
    valid: () => must(behavior().traces[0], 'trace'),
    invalid: { at: ['half'], to: 3 },
  }),
  example({
    key: 'behavior-item-trace',
    name: 'a real abstained trace; a reason outside the taxonomy',
    valid: () =>
      must(
        behavior().traces.find((trace) => trace.reason === 'abstained'),
        'abstained trace',
      ),
    invalid: { at: ['reason'], to: 'skipped' },
  }),
  example({
    key: 'behavior-item-trace',
    name: 'a real not-an-option trace; a negative chosen option',
    valid: () =>
      must(
        behavior().traces.find((trace) => trace.reason === 'not_an_option'),
        'not-an-option trace',
      ),
    invalid: { at: ['chosenOption'], to: -1 },
  }),

  // CHI and CHIS -----------------------------------------------------------------------------
  example({
    key: 'axis-profile',
    name: 'a profile over the five axes; an infinite feature value',
    valid: () => profile,
    invalid: { at: ['axes', 'M', 'recall'], to: Number.POSITIVE_INFINITY },
  }),
  example({
    key: 'axis-profile',
    name: 'a profile over the five axes; an axis outside R, M, C, A, I',
    valid: () => profile,
    invalid: { at: ['axes', 'X'], to: { speed: 1 } },
    failsAt: ['axes'],
  }),
  example({
    key: 'human-calibration',
    name: 'a synthetic calibration; a zero scale',
    valid: () => calibration,
    invalid: { at: ['axes', 'M', 'recall', 's'], to: 0 },
    message: 'the scale s must be > 0',
  }),
  example({
    key: 'human-calibration',
    name: 'a calibration built from synthetic human data (with build and sample); a build with one participant',
    valid: () =>
      structuredClone(
        buildCalibration(syntheticHumanData({ seed: 3, participants: 4 }), {
          synthetic: true,
          description: SYNTHETIC_HUMAN_DATA_HEADER.description,
        }),
      ),
    invalid: { at: ['build', 'participants'], to: 1 },
  }),
  example({
    key: 'human-data-header',
    name: 'the synthetic header; schemaVersion 2',
    valid: () => SYNTHETIC_HUMAN_DATA_HEADER,
    invalid: { at: ['schemaVersion'], to: 2 },
  }),
  example({
    key: 'human-data-row',
    name: 'a synthetic row with halves and a cohort; a value given as text',
    valid: () => syntheticHumanData({ seed: 3, participants: 2 })[0],
    invalid: { at: ['value'], to: '0.7' },
    message: 'expected a finite number',
  }),
  example({
    key: 'chi-result',
    name: 'CHI without a calibration (null, with the reason); a value above 100',
    valid: () => chi(profile, null),
    invalid: { at: ['value'], to: 101 },
  }),
  example({
    key: 'chi-result',
    name: 'CHI of a profile against a synthetic calibration; an axis similarity above 1',
    valid: () => chi(profile, calibration),
    invalid: { at: ['axisSimilarity', 'M'], to: 1.01 },
  }),
  example({
    key: 'chis-entry',
    name: 'a literal entry; a decision coordinate of 2',
    valid: () => chisEntry,
    invalid: { at: ['decisionVector', 2], to: 2 },
  }),
  example({
    key: 'chis-entry',
    name: 'an entry written by a real scripted run; a negative checkpoint',
    valid: async () => must((await pilotRun()).chis[0], 'CHIS entry'),
    invalid: { at: ['checkpoint'], to: -1 },
  }),

  // Transport and budget ---------------------------------------------------------------------
  example({
    key: 'chat-result',
    name: 'a literal live result; an unknown failure class',
    valid: () => chatResult,
    invalid: { at: ['failure'], to: 'oops' },
  }),
  example({
    key: 'chat-result',
    name: 'a literal result with an unreported cost; a negative cost',
    valid: () => ({ ...chatResult, usage: { ...usage, costUsd: null } }),
    invalid: { at: ['usage', 'costUsd'], to: -1 },
  }),
  example({
    key: 'chat-result',
    name: 'the result of the real smoke check over OpenRouter shapes; a fractional retry wait',
    valid: async () => must((await smoke()).result ?? undefined, 'smoke chat result'),
    invalid: (result) => ({
      at: ['tries', 0],
      to: { ...result.tries[0], waitMs: 12.5, waitSource: 'backoff' },
    }),
    failsAt: ['tries', 0, 'waitMs'],
  }),
  example({
    key: 'chat-result',
    name: 'a scripted result from a real run; a negative latency',
    valid: async () => must((await attempt('after_response')).result ?? undefined, 'result'),
    invalid: { at: ['latencyMs'], to: -1 },
  }),
  example({
    key: 'ledger-entry',
    name: 'a literal reserve entry; a NaN amount',
    valid: () => ({
      kind: 'reserve',
      seq: 1,
      at,
      reservationId: 'r1',
      attemptId: 'a1',
      amountUsd: 0.04,
    }),
    invalid: { at: ['amountUsd'], to: Number.NaN },
  }),
  example({
    key: 'ledger-entry',
    name: 'the open entry of a real ledger; a negative ceiling',
    valid: async () => (await ledger()).of('open'),
    invalid: { at: ['ceilingUsd'], to: -0.1 },
  }),
  example({
    key: 'ledger-entry',
    name: 'a settle entry of a real ledger; no source for the charge',
    valid: async () => (await ledger()).of('settle'),
    invalid: { at: ['source'], to: '' },
  }),
  example({
    key: 'ledger-entry',
    name: 'a retain entry of a real ledger; a charge on a retain (only settle has one)',
    valid: async () => (await ledger()).of('retain'),
    invalid: { at: ['chargedUsd'], to: 0.05 },
    failsAt: [],
  }),
  example({
    key: 'ledger-entry',
    name: 'the stop entry of a real ledger at its ceiling; a stop kind typo',
    valid: async () => (await ledger()).of('stop'),
    invalid: { at: ['reason', 'kind'], to: 'budget' },
  }),
  example({
    key: 'ledger-state',
    name: 'a literal state; a negative number of open reservations',
    valid: () => ledgerState,
    invalid: { at: ['openReservations'], to: -1 },
  }),
  example({
    key: 'ledger-state',
    name: 'the state of a real ledger stopped at its ceiling; a negative settled total',
    valid: async () => (await ledger()).state,
    invalid: { at: ['settledUsd'], to: -0.01 },
  }),
  example({
    key: 'model-catalog',
    name: 'a catalog fetched by the real client; an empty provider allowlist',
    valid: () => catalog(),
    invalid: { at: ['models', 0, 'providers'], to: [] },
  }),
  example({
    key: 'model-catalog',
    name: 'a catalog fetched by the real client; a negative endpoint price',
    valid: () => catalog(),
    invalid: { at: ['models', 0, 'endpoints', 1, 'price', 'requestUsd'], to: -0.001 },
  }),
  example({
    key: 'model-catalog',
    name: 'a catalog fetched by the real client; a local fetch time',
    valid: () => catalog(),
    invalid: { at: ['fetchedAt'], to: '2026-09-01T09:00:00+02:00' },
    message: 'expected an ISO-8601 UTC timestamp ending in Z',
  }),
  example({
    key: 'smoke-result',
    name: 'a passing smoke check by the real runner; smoke data marked as scored',
    valid: () => smoke(),
    invalid: { at: ['evidence'], to: 'scored' },
  }),
  example({
    key: 'smoke-result',
    name: 'a passing smoke check by the real runner; an unknown reply check',
    valid: () => smoke(),
    invalid: { at: ['checks', 'replyParsed'], to: null },
  }),

  // Run records ------------------------------------------------------------------------------
  example({
    key: 'divergence-manifest',
    name: 'the divergence manifest the pilot builds; a ceiling that is not a number',
    valid: () => divergenceManifest(),
    invalid: { at: ['ceilingUsd'], to: 'none' },
  }),
  example({
    key: 'divergence-manifest',
    name: 'the divergence manifest the pilot builds; a swap arm without its partner',
    valid: () => divergenceManifest(),
    invalid: { at: ['arms', 4, 'operation'], to: { kind: 'swap' } },
    failsAt: ['arms', 4, 'operation', 'partner'],
  }),
  example({
    key: 'run-manifest',
    name: 'a literal manifest; a confidence level of 1',
    valid: () => manifest,
    invalid: { at: ['analysis', 'level'], to: 1 },
  }),
  example({
    key: 'run-manifest',
    name: 'a literal manifest with a registered experiment keyed by its ID; an added one keyed the same way',
    valid: () => ({ ...manifest, experiments: { ...manifest.experiments, tally: { items: 6 } } }),
    invalid: { at: ['experiments', 'x-tally'], to: { items: 6 } },
    message: "expected a registered experiment's kebab-case ID (an added one goes under added)",
  }),
  example({
    key: 'run-manifest',
    name: 'the manifest of a real run; no world seeds',
    valid: async () => (await pilotRun()).manifest,
    invalid: { at: ['worldSeeds'], to: [] },
  }),
  example({
    key: 'run-manifest',
    name: 'the manifest of a real run; a plan hash in upper case',
    valid: async () => (await pilotRun()).manifest,
    invalid: { at: ['planSha256'], to: 'A'.repeat(64) },
    message: 'expected a 64-character lowercase hex SHA-256',
  }),
  example({
    key: 'run-plan',
    name: 'the plan of a real run; a nonce that is not 16 lowercase hex',
    valid: async () => (await pilotRun()).plan,
    invalid: { at: ['requests', 0, 'nonce'], to: 'NONCE-0001' },
  }),
  example({
    key: 'run-plan',
    name: 'the plan of a real run; a history request at checkpoint 5',
    valid: async () => (await pilotRun()).plan,
    invalid: (plan) => ({
      at: ['requests', plan.requests.findIndex((r) => r.checkpoint === 4), 'checkpoint'],
      to: 5,
    }),
  }),
  example({
    key: 'run-plan',
    name: 'the plan of a real run; a behavioral half 3',
    valid: async () => (await pilotRun()).plan,
    invalid: (plan) => ({
      at: ['requests', plan.requests.findIndex((r) => r.half !== null), 'half'],
      to: 3,
    }),
  }),
  example({
    key: 'run-plan',
    // any kebab-case ID is a registered experiment's by form (the runner checks its registry)
    name: 'the plan of a real run; a block whose experiment is not an experiment ID',
    valid: async () => (await pilotRun()).plan,
    invalid: { at: ['blocks', 0, 'experiment'], to: 'Recall Test' },
  }),
  example({
    key: 'rendered-request',
    name: 'a request assembled from a real run; a message role outside system/user/assistant',
    valid: async () => (await pilotRun()).rendered,
    invalid: { at: ['messages', 0, 'role'], to: 'developer' },
  }),
  example({
    key: 'request-index-entry',
    name: 'a requests.jsonl line of a real run; a request hash that is not hex',
    valid: async () => (await pilotRun()).requestIndexEntry,
    invalid: { at: ['requestSha256'], to: 'not-a-hash' },
  }),
  example({
    key: 'request-index-entry',
    name: 'a requests.jsonl line of a real run; the kind of a full rendered request',
    valid: async () => (await pilotRun()).requestIndexEntry,
    invalid: { at: ['kind'], to: 'rendered-request' },
  }),
  example({
    key: 'rendered-request',
    // any snake-case task is a registered experiment's by form (the runner checks its registry)
    name: 'a request assembled from a real run; a task that is not a task name',
    valid: async () => (await pilotRun()).rendered,
    invalid: { at: ['task'], to: 'memory recall' },
  }),
  example({
    key: 'attempt-record',
    name: 'a literal after_response record; a manifest hash that is not hex',
    valid: () => ({
      kind: 'attempt',
      manifestSha256: sha,
      attemptId: 'a1',
      requestId: 'w0-mem-32-probe',
      systemId: 'kimi',
      blockId: 'w0/memory/32',
      phase: 'after_response',
      at,
      requestSha256: sha,
      inputBytes: 1024,
      result: chatResult,
    }),
    invalid: { at: ['manifestSha256'], to: 'not-a-hash' },
  }),
  example({
    key: 'attempt-record',
    name: 'a before_send line of a real run; a phase typo',
    valid: () => attempt('before_send'),
    invalid: { at: ['phase'], to: 'sent' },
  }),
  example({
    key: 'attempt-record',
    name: 'an after_response line of a real run; a result with an unknown failure class',
    valid: () => attempt('after_response'),
    invalid: { at: ['result', 'failure'], to: 'rate_limited' },
  }),
  example({
    key: 'notebook-snapshot',
    name: 'the empty starting notebook of a real run; an empty request ID (null means none)',
    valid: async () => (await pilotRun()).emptyNotebook,
    invalid: { at: ['requestId'], to: '' },
  }),
  example({
    key: 'notebook-snapshot',
    name: 'a notebook written by a real history update; a fractional byte count',
    valid: async () => (await pilotRun()).notebook,
    invalid: { at: ['bytes'], to: 10.5 },
  }),
  example({
    key: 'failure-log-entry',
    name: 'the infrastructure failure of a real run; a category typo',
    valid: () => failure('infrastructure'),
    invalid: { at: ['category'], to: 'network' },
  }),
  example({
    key: 'failure-log-entry',
    name: 'the model failure (timeout) of a real run; a failure class typo',
    valid: () => failure('model'),
    invalid: { at: ['failure'], to: 'timed_out' },
  }),
  example({
    key: 'failure-log-entry',
    name: 'a dependency failure of a real run; a negative retry wait',
    valid: () => failure('dependency'),
    invalid: { at: ['retryWaitsMs'], to: [-1] },
    failsAt: ['retryWaitsMs', 0],
  }),
  example({
    key: 'block-status',
    name: 'the incomplete memory block of a real run; status "partial"',
    valid: () => block('incomplete'),
    invalid: { at: ['status'], to: 'partial' },
  }),
  example({
    key: 'block-status',
    name: 'a complete block of a real run; a negative count of requests not sent',
    valid: () => block('complete'),
    invalid: { at: ['requests', 'notSent'], to: -1 },
  }),
  example({
    key: 'run-status',
    name: 'the status of a real run; a state typo',
    valid: async () => (await pilotRun()).status,
    invalid: { at: ['state'], to: 'done' },
  }),
  example({
    key: 'run-status',
    name: 'the status of a real run; a NaN charge',
    valid: async () => (await pilotRun()).status,
    invalid: { at: ['spend', 'chargedUsd'], to: Number.NaN },
  }),
  // Configuration -----------------------------------------------------------------------------
  example({
    key: 'pilot-config',
    name: 'a chi.config.json of a small offline run; a fractional replicate count',
    valid: () => ({
      $schema: './node_modules/@chi/spec/schemas/pilot-config.schema.json',
      $comment: ['two worlds, two loads'],
      systems: ['perfect', 'abstainer'],
      replicates: 2,
      loads: [32, 64],
      batchSize: null,
      history: false,
      out: 'runs/small',
    }),
    invalid: { at: ['replicates'], to: 1.5 },
  }),
  example({
    key: 'pilot-config',
    name: 'a live configuration; a loads preset that does not exist',
    valid: () => ({
      models: ['moonshotai/kimi-k3@moonshotai/mxfp4', 'openai/gpt-oss-120b@together+groq'],
      ceilingUsd: 25,
      loads: 'v0.1',
      concurrency: 4,
    }),
    invalid: { at: ['loads'], to: 'v0.2' },
  }),
  // Studies -----------------------------------------------------------------------------------
  ...(['schedule', 'checkpoint'] as const).map((defect) =>
    example({
      key: 'study',
      name:
        defect === 'schedule'
          ? 'a study.json of three sessions; a first session that waits'
          : 'a study.json of three sessions; a primary checkpoint at a load it never asks',
      valid: () => ({
        $schema: './node_modules/@chi/spec/schemas/study.schema.json',
        studyId: 'four-weeks',
        protocol: 'chi-pilot',
        systems: ['perfect', 'latest-wins'],
        experiments: { memory: { loads: [32, 64] } },
        worldSeeds: { rootSeed: 20260901, replicates: 4 },
        schedule: [{ afterPreviousDays: 0 }, { afterPreviousDays: 1 }, { afterPreviousDays: 6 }],
        ceilings: { perSessionUsd: 5, totalUsd: 15 },
        primary: { session: 2, checkpoint: { experiment: 'memory', load: 32 } },
      }),
      invalid:
        defect === 'schedule'
          ? { at: ['schedule', 0, 'afterPreviousDays'], to: 2 }
          : { at: ['primary', 'checkpoint', 'load'], to: 128 },
      message: defect === 'schedule' ? 'expected 0' : 'expected one of the memory loads 32, 64',
    }),
  ),
];

for (const { key, name, build, message } of examples) {
  describe(`${key}: ${name}`, () => {
    const schema: z.ZodType = JSON_SCHEMA_REGISTRY[key];

    it('accepts the valid example unchanged', async () => {
      const { valid } = await build();
      expect(schema.parse(valid)).toEqual(valid);
    });

    it('rejects the invalid example at the named path, and only there', async () => {
      const { invalid, failsAt } = await build();
      const result = schema.safeParse(invalid);
      expect(result.success).toBe(false);
      const issues = result.error?.issues ?? [];
      const paths = issues.map((issue) => issue.path);
      expect(paths).toContainEqual(failsAt);
      // One deliberate defect per example: nothing else about it may be wrong.
      expect(new Set(paths.map((path) => JSON.stringify(path)))).toEqual(
        new Set([JSON.stringify(failsAt)]),
      );
      if (message !== undefined)
        expect(issues.map((issue) => issue.message).join('\n')).toContain(message);
    });
  });
}

describe('example coverage', () => {
  it('has a valid and an invalid example for every schema in JSON_SCHEMA_REGISTRY', () => {
    const exercised = [...new Set(examples.map((entry) => entry.key))].sort();
    expect(exercised).toEqual(Object.keys(JSON_SCHEMA_REGISTRY).sort());
  });
});
