import { HISTORY_IDS } from '@chi/spec/internal';
/**
 * Builds a small run folder that follows packages/pilot/RUN-FOLDER.md, without the pilot: worlds
 * from @chi/worlds, two scripted systems answering from the answer key, and optional failures.
 * Used until (and beside) real offline pilot runs, so report tests control every edge case.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { AttemptRecord, BehavioralItemSet, ChatMessage, ChatResult, FailureClass, HistoryWorld, MemoryWorld, PlannedBlock, PlannedRequest, RenderedRequest, RequestTask, RunManifest } from '@chi/spec';
import type { FailureLogEntry, NotebookSnapshot } from '@chi/spec/internal';
import { generateBehavioralItems, generateHistoryWorld, generateMemoryWorld, generatorInfo } from '@chi/worlds';
import { canonicalJson, sha256Hex } from '../canonical-json';

/** Options of {@link buildFixtureRun}. */
export interface FixtureRunOptions {
  readonly seeds?: readonly number[];
  readonly loads?: readonly number[];
  readonly probesPerStratum?: number;
  readonly resamples?: number;
  /** Request IDs that fail with an infrastructure failure (their block becomes incomplete). */
  readonly infrastructureFailures?: readonly string[];
  /** Request IDs that time out (a model failure: stays in the scored block). */
  readonly timeouts?: readonly string[];
  /** Extra text appended to every redacted response (to plant secrets in negative tests). */
  readonly plantInResponses?: string;
  /** Evidence class of the systems (default scripted_baseline). */
  readonly evidenceClass?: 'scripted_baseline' | 'live_model' | 'fixture';
}

const SYSTEMS = ['keeper', 'forgetful'] as const;
type FixtureSystem = (typeof SYSTEMS)[number];
const BASE_MS = Date.parse('2026-09-01T08:00:00.000Z');

function pretty(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

async function put(root: string, path: string, text: string): Promise<void> {
  await mkdir(dirname(join(root, path)), { recursive: true });
  await writeFile(join(root, path), text);
}

function block(name: string, value: unknown[]): string {
  return `BEGIN ${name} JSON\n${value.length === 0 ? '[]' : `[\n${value.map((v) => JSON.stringify(v)).join(',\n')}\n]`}\nEND ${name} JSON`;
}

/** Deterministic "coin" from a string: 0..255. */
function coin(text: string): number {
  return Number.parseInt(sha256Hex(text).slice(0, 2), 16);
}

function memoryReply(system: FixtureSystem, world: MemoryWorld, condition: string, ids: readonly string[]): string {
  const key = new Map(world.answerKey.map((e) => [e.id, e]));
  return JSON.stringify(
    ids.map((id) => {
      const entry = key.get(id);
      if (entry === undefined || condition === 'blank') return { id, value: null, source: null };
      const knows = system === 'keeper' || condition === 'oracle' || coin(`${id}|${world.load}`) < 230 - world.load * 4;
      if (entry.expectedValue === null) {
        // a lure (or an unknown as-of): the forgetful system sometimes invents a value
        return system === 'forgetful' && coin(`lure|${id}`) < 60 ? { id, value: 'deadbeef', source: 'memory' } : { id, value: null, source: null };
      }
      if (!knows) return { id, value: null, source: null };
      return { id, value: entry.expectedValue, source: entry.expectedSource };
    }),
  );
}

function taskReply(answers: readonly { id: string; answer: string | null }[]): string {
  return JSON.stringify(answers);
}

/**
 * Writes a complete run folder into `root` and returns its manifest. Systems: `keeper` (answers
 * from the answer key: a reference, not a model) and `forgetful` (forgets some keys, invents on
 * some lures, gives one invalid history answer).
 */
export async function buildFixtureRun(root: string, options: FixtureRunOptions = {}): Promise<RunManifest> {
  const seeds = options.seeds ?? [11, 12, 13];
  const probesPerStratum = options.probesPerStratum ?? 2;
  const loads = options.loads ?? [4 * probesPerStratum, 8 * probesPerStratum];
  const controlsAtLoad = loads[0] ?? 8;
  const evidenceClass = options.evidenceClass ?? 'scripted_baseline';
  const infra = new Set(options.infrastructureFailures ?? []);
  const timeouts = new Set(options.timeouts ?? []);

  const prompts: Record<string, string> = {
    'system@1.txt': 'You are a careful assistant.\n',
    'memory-encode@1.txt': 'Write notes.\n{{REQUEST_BLOCK}}\n{{RECORDS_BLOCK}}\n',
    'memory-probe@1.txt': 'Answer from notes.\n{{REQUEST_BLOCK}}\n{{NOTES_BLOCK}}\n{{QUESTIONS_BLOCK}}\n',
    'memory-probe-oracle@1.txt': 'Answer from records.\n{{REQUEST_BLOCK}}\n{{RECORDS_BLOCK}}\n{{QUESTIONS_BLOCK}}\n',
    'history-update@1.txt': 'Update notes.\n{{NOTES_BLOCK}}\n{{EVENT_BLOCK}}\n',
    'history-probe@1.txt': 'Decide.\n{{NOTES_BLOCK}}\n{{QUESTIONS_BLOCK}}\n',
    'behavior-half@1.txt': 'Answer the items.\n{{ITEMS_BLOCK}}\n',
  };
  const manifest: RunManifest = {
    kind: 'run-manifest',
    schemaVersion: 1,
    protocol: 'cplom-longitudinal-model-pilot-2026-09-v1',
    createdAt: '2026-09-01T08:00:00.000Z',
    evidenceClass,
    systems: SYSTEMS.map((id) => ({
      id,
      kind: 'scripted',
      model: `scripted/${id}`,
      providers: [],
      baseUrl: null,
      evidenceClass,
      reasoningEffort: null,
      maxOutputTokens: 4096,
      safetyPrice: null,
    })),
    replicates: seeds.length,
    worldSeeds: [...seeds],
    experiments: {
      memory: { loads: [...loads], probesPerStratum, batchSize: null, controlsAtLoad },
      history: { checkpoints: 5 },
      behavior: { items: 24 },
    },
    notebookCapBytes: 6000,
    ceilingUsd: 0,
    deadlineMs: 180000,
    maxOutputTokens: 4096,
    concurrency: 1,
    retry: { maxRetries: 2, retryAfterCapMs: 60000 },
    reservationMargin: 0.2,
    prompts: Object.entries(prompts).map(([file, text]) => {
      const [name, version] = file.replace(/\.txt$/, '').split('@') as [string, string];
      return { name, version, sha256: sha256Hex(text) };
    }),
    generators: [generatorInfo()],
    analysis: { seed: 20260902, resamples: options.resamples ?? 200, level: 0.95, taus: [0.7, 0.8, 0.9] },
    failureRules: ['Only explicit HTTP 429/5xx and pre-response connection failures are retried, at most twice.'],
  };
  const manifestText = canonicalJson(manifest);
  const manifestSha256 = sha256Hex(manifestText);
  await put(root, 'manifest.json', manifestText);
  await put(root, 'manifest.sha256', `${manifestSha256}  manifest.json\n`);
  for (const [file, text] of Object.entries(prompts)) await put(root, `prompts/${file}`, text);

  const requests: PlannedRequest[] = [];
  const blocks: PlannedBlock[] = [];
  const attempts: AttemptRecord[] = [];
  const failures: FailureLogEntry[] = [];
  let clock = 0;
  const tick = () => new Date(BASE_MS + 1000 * clock++).toISOString();

  async function send(args: {
    system: FixtureSystem;
    blockId: string;
    experiment: PlannedRequest['experiment'];
    task: RequestTask;
    step: string;
    seed: number;
    load: number | null;
    condition?: 'notebook' | 'blank' | 'oracle' | null;
    history?: 'A' | 'B' | 'A2' | null;
    checkpoint?: number | null;
    half?: 1 | 2 | null;
    dependsOn?: string[];
    writesNotebook?: boolean;
    template: string;
    user: string;
    reply: string;
  }): Promise<{ requestId: string; text: string | null }> {
    const requestId = `${args.system}.${args.blockId}.${args.step}`;
    requests.push({
      requestId,
      systemId: args.system,
      blockId: args.blockId,
      experiment: args.experiment,
      task: args.task,
      step: args.step,
      worldSeed: args.seed,
      load: args.load,
      condition: args.condition ?? null,
      batch: args.task === 'memory_probe' || args.task === 'memory_probe_oracle' ? 0 : null,
      history: args.history ?? null,
      checkpoint: args.checkpoint ?? null,
      half: args.half ?? null,
      dependsOn: args.dependsOn ?? [],
      writesNotebook: args.writesNotebook ?? false,
      nonce: sha256Hex(`${args.blockId}.${args.step}`).slice(0, 16),
    });
    const messages: ChatMessage[] = [
      { role: 'system', content: prompts['system@1.txt'] as string },
      { role: 'user', content: args.user },
    ];
    const requestSha256 = sha256Hex(canonicalJson(messages));
    const inputBytes = messages.reduce((s, m) => s + Buffer.byteLength(m.content, 'utf8'), 0);
    const rendered: RenderedRequest = {
      kind: 'rendered-request',
      requestId,
      systemId: args.system,
      blockId: args.blockId,
      task: args.task,
      template: { name: args.template, version: '1' },
      messages,
      maxOutputTokens: 4096,
      requestSha256,
      inputBytes,
    };
    await put(root, `requests/${requestId}.json`, pretty(rendered));
    const attemptId = `${requestId}#1`;
    const common = { kind: 'attempt' as const, manifestSha256, attemptId, requestId, systemId: args.system, blockId: args.blockId, requestSha256, inputBytes };
    const startedAt = tick();
    attempts.push({ ...common, phase: 'before_send', at: startedAt, result: null });
    const failure: FailureClass = infra.has(requestId) ? 'http_retryable' : timeouts.has(requestId) ? 'timeout' : 'none';
    const text = failure === 'none' ? args.reply : null;
    const finishedAt = tick();
    const result: ChatResult = {
      requestId,
      evidenceClass,
      text,
      failure,
      failureDetail: failure === 'none' ? null : `${failure} (fixture)`,
      finishReason: failure === 'none' ? 'stop' : null,
      truncated: false,
      requestedModel: `scripted/${args.system}`,
      returnedModel: `scripted/${args.system}`,
      returnedProvider: 'scripted',
      generationId: `gen-${sha256Hex(requestId).slice(0, 12)}`,
      usage: { promptTokens: Math.ceil(inputBytes / 4), completionTokens: Math.ceil((text ?? '').length / 4), reasoningTokens: null, totalTokens: null, costUsd: 0 },
      startedAt,
      finishedAt,
      latencyMs: 1000 + (coin(requestId) % 50),
      tries: [{ tryIndex: 0, startedAt, status: failure === 'http_retryable' ? 503 : 200, failure, detail: null, waitMs: null, waitSource: null }],
      reservedUsd: 0,
      chargedUsd: 0,
      redactedResponse: { id: `gen-${sha256Hex(requestId).slice(0, 12)}`, choices: [{ message: { role: 'assistant', content: text } }], note: options.plantInResponses ?? null },
    };
    attempts.push({ ...common, phase: 'after_response', at: finishedAt, result });
    if (failure !== 'none') {
      failures.push({
        kind: 'failure',
        at: finishedAt,
        requestId,
        attemptId,
        systemId: args.system,
        blockId: args.blockId,
        category: failure === 'http_retryable' ? 'infrastructure' : 'model',
        failure,
        detail: `${failure} (fixture)`,
        retryWaitsMs: failure === 'http_retryable' ? [1000, 2000] : [],
      });
    }
    return { requestId, text };
  }

  async function snapshot(system: string, blockId: string, path: string, requestId: string | null, text: string): Promise<void> {
    const bytes = Buffer.byteLength(text, 'utf8');
    const note: NotebookSnapshot = { kind: 'notebook', systemId: system, blockId, requestId, text, bytes, originalBytes: bytes, truncated: false, sha256: sha256Hex(text), capBytes: 6000 };
    await put(root, `notebooks/${system}/${path}.json`, pretty(note));
  }

  for (const seed of seeds) {
    // memory and controls
    for (const load of loads) {
      const world = generateMemoryWorld({ seed, load, probesPerStratum });
      await put(root, `worlds/memory/w${seed}-n${load}.json`, pretty(world));
      const blockId = `memory.w${seed}.n${load}`;
      const before = requests.length;
      for (const system of SYSTEMS) {
        const kept = world.records.filter((r, index) => system === 'keeper' || coin(`${r.key}|${index}`) < 200);
        const notes = kept.map((r) => `${r.key} ${r.value} ${r.source} ${r.eventTime} a${r.authority}`).join('\n');
        const encode = await send({
          system, blockId, experiment: 'memory', task: 'memory_encode', step: 'encode', seed, load, condition: 'notebook', writesNotebook: true,
          template: 'memory-encode', user: `Write notes.\n${block('RECORDS', world.records)}`, reply: notes,
        });
        if (encode.text !== null) await snapshot(system, blockId, `memory/w${seed}-n${load}`, encode.requestId, encode.text);
        const ids = world.probes.map((p) => p.id);
        await send({
          system, blockId, experiment: 'memory', task: 'memory_probe', step: 'probe.b0', seed, load, condition: 'notebook', dependsOn: [encode.requestId],
          template: 'memory-probe', user: `Answer.\n${block('QUESTIONS', world.probes)}`, reply: memoryReply(system, world, 'notebook', ids),
        });
      }
      blocks.push({ blockId, experiment: 'memory', worldSeed: seed, load, requestIds: requests.slice(before).map((r) => r.requestId) });
      if (load === controlsAtLoad) {
        const controlsId = `controls.w${seed}.n${load}`;
        const start = requests.length;
        for (const system of SYSTEMS) {
          const ids = world.probes.map((p) => p.id);
          await send({
            system, blockId: controlsId, experiment: 'controls', task: 'memory_probe', step: 'blank.probe.b0', seed, load, condition: 'blank',
            template: 'memory-probe', user: `Answer.\n${block('QUESTIONS', world.probes)}`, reply: memoryReply(system, world, 'blank', ids),
          });
          await send({
            system, blockId: controlsId, experiment: 'controls', task: 'memory_probe_oracle', step: 'oracle.probe.b0', seed, load, condition: 'oracle',
            template: 'memory-probe-oracle', user: `Answer.\n${block('QUESTIONS', world.probes)}`, reply: memoryReply(system, world, 'oracle', ids),
          });
        }
        blocks.push({ blockId: controlsId, experiment: 'controls', worldSeed: seed, load, requestIds: requests.slice(start).map((r) => r.requestId) });
      }
    }
    // history
    const historyWorld: HistoryWorld = generateHistoryWorld({ seed });
    await put(root, `worlds/history/w${seed}.json`, pretty(historyWorld));
    const historyId = `history.w${seed}`;
    const historyStart = requests.length;
    for (const system of SYSTEMS) {
      for (const h of HISTORY_IDS) {
        let notes = '';
        await snapshot(system, historyId, `history/w${seed}-${h}-c0`, null, notes);
        for (let k = 0; k <= 4; k++) {
          const deps: string[] = [];
          if (k >= 1) {
            const update = await send({
              system, blockId: historyId, experiment: 'history', task: 'history_update', step: `${h}.c${k}.update`, seed, load: null, history: h, checkpoint: k, writesNotebook: true,
              template: 'history-update', user: `Update.\n${block('EVENT', historyWorld.histories[h][k]?.evidence ?? [])}`, reply: `${notes}\ncheckpoint ${k}`.trim(),
            });
            notes = update.text ?? notes;
            deps.push(update.requestId);
            await snapshot(system, historyId, `history/w${seed}-${h}-c${k}`, update.requestId, notes);
          }
          const valid = historyWorld.validAnswers[h][k] ?? [];
          const answers = historyWorld.environments.map((environment, index) => {
            const warranted = valid[index] ?? 'unknown';
            if (system === 'forgetful' && h === 'B' && k === 2 && index === 0) return { id: environment.id, answer: 'maybe' };
            if (system === 'forgetful' && k === 4 && index === 1) return { id: environment.id, answer: warranted === 'unknown' ? null : warranted === 'A' ? environment.labels.B : environment.labels.A };
            return { id: environment.id, answer: warranted === 'unknown' ? null : environment.labels[warranted] };
          });
          await send({
            system, blockId: historyId, experiment: 'history', task: 'history_probe', step: `${h}.c${k}.probe`, seed, load: null, history: h, checkpoint: k, dependsOn: deps,
            template: 'history-probe', user: `Decide.\n${block('QUESTIONS', historyWorld.environments.map((e) => ({ id: e.id, subject: e.subject, options: [e.labels.A, e.labels.B] })))}`,
            reply: taskReply(answers),
          });
        }
      }
    }
    blocks.push({ blockId: historyId, experiment: 'history', worldSeed: seed, load: null, requestIds: requests.slice(historyStart).map((r) => r.requestId) });
    // behavior
    const items: BehavioralItemSet = generateBehavioralItems({ seed });
    await put(root, `worlds/behavior/w${seed}.json`, pretty(items));
    const behaviorId = `behavior.w${seed}`;
    const behaviorStart = requests.length;
    for (const system of SYSTEMS) {
      for (const half of [1, 2] as const) {
        const halfItems = items.items.filter((i) => i.half === half).sort((a, b) => a.position - b.position);
        const answers = halfItems.map((item) => {
          const key = items.key.find((k) => k.itemId === item.id);
          const expected = key?.expected ?? '';
          if (system === 'forgetful' && item.axis === 'A' && item.frame === 'negative') {
            const other = item.options?.find((o) => o !== expected) ?? expected;
            return { id: item.id, answer: other };
          }
          if (system === 'forgetful' && item.axis === 'R' && coin(item.id) < 100) return { id: item.id, answer: 'zzz' };
          return { id: item.id, answer: expected };
        });
        await send({
          system, blockId: behaviorId, experiment: 'behavior', task: 'behavior_half', step: `half${half}`, seed, load: null, half,
          template: 'behavior-half', user: `Items.\n${block('ITEMS', halfItems.map((i) => ({ id: i.id, options: i.options })))}`, reply: taskReply(answers),
        });
      }
    }
    blocks.push({ blockId: behaviorId, experiment: 'behavior', worldSeed: seed, load: null, requestIds: requests.slice(behaviorStart).map((r) => r.requestId) });
  }

  await put(root, 'plan.json', pretty({ kind: 'run-plan', schemaVersion: 1, requests, blocks }));
  await put(root, 'attempts.jsonl', attempts.map((a) => `${JSON.stringify(a)}\n`).join(''));
  await put(root, 'failures.jsonl', failures.map((f) => `${JSON.stringify(f)}\n`).join(''));
  await put(root, 'ledger.jsonl', '');
  await put(
    root,
    'status.json',
    pretty({
      kind: 'run-status',
      runId: `20260901T080000Z-${manifestSha256.slice(0, 8)}`,
      manifestSha256,
      state: 'completed',
      startedAt: '2026-09-01T08:00:00.000Z',
      updatedAt: new Date(BASE_MS + 1000 * clock).toISOString(),
      finishedAt: new Date(BASE_MS + 1000 * clock).toISOString(),
      resumes: 0,
      requests: { total: requests.length, resolved: requests.length, failed: failures.length, abandoned: 0, notSent: 0 },
      spend: { ceilingUsd: 0, committedUsd: 0, chargedUsd: 0 },
      stop: null,
      blocks: { complete: blocks.length, incomplete: 0, notStarted: 0 },
      elapsedMs: 1000 * clock,
      exitCode: 0,
    }),
  );
  return manifest;
}
