import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { renderJsonBlock } from '@chi/experiment';
import { openRunFolder, readAttemptLog } from '@chi/run';
import type { ChatModel, PlannedRequest, SystemSpec } from '@chi/spec';
import type { NotebookSource } from '@chi/spec/internal';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type AnyExperiment, defineExperiment } from '../experiments/experiment';
import { PILOT_EXPERIMENTS } from '../experiments/registry';
import { plannedRequest, requestNonce } from '../plan/plan-request';
import { createRun } from '../run-folder/run-create';
import { scriptedChatModel, scriptedSystemSpec } from '../scripted/scripted-systems';
import { defaultOfflineSettings } from '../settings';
import { executeRun } from './run-execute';

/**
 * A test experiment exercising the runner's notebook sources and instance-scoped models: per
 * world one block of five requests over one notebook key, `w1` and `w2` writing it, then requests
 * reading it through each kind of source.
 */
const STEPS: readonly {
  readonly step: string;
  readonly writes: boolean;
  readonly source?: (id: (step: string) => string) => NotebookSource;
  readonly after?: readonly string[];
}[] = [
  { step: 'w1', writes: true },
  { step: 'w2', writes: true, source: () => ({ kind: 'empty' }) },
  { step: 'fault', writes: false, source: (id) => ({ kind: 'corrupted', requestId: id('w1') }) },
  { step: 'restore', writes: false, source: (id) => ({ kind: 'request', requestId: id('w1') }) },
  { step: 'plain', writes: false },
];

function opsRequests(systemId: string, worldSeed: number): PlannedRequest[] {
  const id = (step: string) => `${systemId}.x-ops.w${worldSeed}.${step}`;
  return STEPS.map(({ step, writes, source }, index) => {
    const previous = STEPS[index - 1];
    const named = source?.(id);
    const dependsOn = [
      ...(previous === undefined ? [] : [id(previous.step)]),
      ...(named !== undefined &&
      named.kind !== 'empty' &&
      named.requestId !== id(previous?.step ?? '')
        ? [named.requestId]
        : []),
    ];
    return plannedRequest({
      requestId: id(step),
      systemId,
      blockId: `x-ops.w${worldSeed}`,
      experiment: 'x-ops',
      task: 'x-ops',
      step,
      worldSeed,
      dependsOn,
      writesNotebook: writes,
      nonce: requestNonce(worldSeed, 'x-ops', step),
      ...(named === undefined ? {} : { notebookSource: named }),
    });
  });
}

const ops = defineExperiment<{ on: true }>({
  specificationVersion: 'chi-experiment-v1',
  id: 'x-ops',
  title: 'Notebook sources (test module)',
  slots: [{ axis: 'M', coverage: 'partial', what: 'nothing: a test module' }],
  procedure: 'Five requests per world over one notebook.',
  taskScore: 'None.',
  features: [
    {
      id: 'x-ops-features',
      version: 1,
      features: ['seen'],
      coding: 'test only',
      schema: z.strictObject({ seen: z.string() }),
    },
  ],
  control: 'None.',
  seedPassages: [{ source: 'framework', quote: 'Memory-erasure and sham-erasure conditions' }],
  parameters: z.strictObject({ on: z.literal(true) }),
  kinds: ['x-ops'],
  tasks: ['x-ops'],
  parametersFrom: () => ({ on: true }),
  parametersOf: (manifest) =>
    (manifest.experiments.added?.['x-ops'] as { on: true } | undefined) ?? null,
  plan: ({ worldSeed }) => [
    {
      block: { blockId: `x-ops.w${worldSeed}`, experiment: 'x-ops', worldSeed, load: null },
      requestsFor: (systemId) => opsRequests(systemId, worldSeed),
    },
  ],
  notebookKey: (request) => `x-ops|${request.worldSeed}`,
  startingNotebooks: (manifest) => manifest.worldSeeds.map((seed) => `x-ops|${seed}`),
  render: ({ request, notes }) => ({
    task: 'x-ops',
    template: { name: 'x-ops', version: '1' },
    messages: [
      {
        role: 'user',
        content: renderJsonBlock('REQUEST', {
          task: 'x-ops',
          nonce: request.nonce,
          notes: notes(request.systemId, `x-ops|${request.worldSeed}`),
        }),
      },
    ],
  }),
});

const registry: readonly AnyExperiment[] = [...PILOT_EXPERIMENTS, ops];
const settings = defaultOfflineSettings({
  systems: [scriptedSystemSpec('perfect')],
  replicates: 2,
  templates: ['x-ops'],
});

/** A scripted instance that counts its own calls: each reply names its block and call number. */
function countingInstance(system: SystemSpec, blockId: string): ChatModel {
  let calls = 0;
  return scriptedChatModel(
    system.model,
    () => {
      calls += 1;
      return `${blockId}#${calls}`;
    },
    () => new Date('2026-09-01T00:00:00.000Z'),
  );
}

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'chi-notebook-source-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** The notes each request of the run was rendered with, and each reply, by step. */
async function seen(runDir: string, worldSeed: number) {
  const folder = openRunFolder(runDir);
  const attempts = await readAttemptLog(folder.paths.attempts);
  const out: Record<string, { notes: string; reply: string | null } | undefined> = {};
  for (const { step } of STEPS) {
    const requestId = `perfect.x-ops.w${worldSeed}.${step}`;
    const stored = await folder.readRequest(requestId);
    const content = stored?.messages[0]?.content ?? '';
    const notes = (
      JSON.parse(content.slice(content.indexOf('{'), content.lastIndexOf('}') + 1)) as {
        notes: string;
      }
    ).notes;
    const answered = attempts.find(
      (record) => record.requestId === requestId && record.phase === 'after_response',
    );
    out[step] = { notes, reply: answered?.result?.text ?? null };
  }
  return out;
}

describe('notebook sources of the shared runner', () => {
  it('renders each request with its source and records the source in before_send', async () => {
    const run = await createRun({ settings, runDir: join(root, 'run'), experiments: registry });
    const seed = run.frozen.manifest.worldSeeds[0] as number;
    const outcome = await executeRun({
      runDir: run.runDir,
      modelFor: countingInstance,
      experiments: registry,
    });
    expect(outcome.state).toBe('completed');
    const block = `x-ops.w${seed}`;
    const first = `${block}#1`;
    expect(await seen(run.runDir, seed)).toEqual({
      w1: { notes: '', reply: first },
      // erased: empty, although the key holds w1's notebook
      w2: { notes: '', reply: `${block}#2` },
      // corrupted: w1's notebook made unreadable at its byte length
      fault: { notes: '~'.repeat(first.length), reply: `${block}#3` },
      // restored: w1's notebook, although the key holds w2's
      restore: { notes: first, reply: `${block}#4` },
      // no source: the key, which holds w2's
      plain: { notes: `${block}#2`, reply: `${block}#5` },
    });
    const sources = (await readAttemptLog(openRunFolder(run.runDir).paths.attempts))
      .filter((record) => record.phase === 'before_send' && record.requestId.includes(`w${seed}.`))
      .map((record) => record.notebookSource ?? null);
    expect(sources).toEqual([
      null,
      { kind: 'empty' },
      { kind: 'corrupted', requestId: `perfect.x-ops.w${seed}.w1` },
      { kind: 'request', requestId: `perfect.x-ops.w${seed}.w1` },
      null,
    ]);
  });

  it('keeps the plan bytes of a request without a source (the field is absent)', () => {
    const [plain] = opsRequests('perfect', 1);
    expect(plain !== undefined && 'notebookSource' in plain).toBe(false);
  });
});

describe('instance-scoped models of the shared runner', () => {
  it('gives every block its own model object', async () => {
    const run = await createRun({ settings, runDir: join(root, 'run'), experiments: registry });
    await executeRun({ runDir: run.runDir, modelFor: countingInstance, experiments: registry });
    for (const seed of run.frozen.manifest.worldSeeds)
      expect((await seen(run.runDir, seed)).w1?.reply).toBe(`x-ops.w${seed}#1`);
  });

  it('replays the resolved requests to a fresh scripted instance before sending on resume', async () => {
    const run = await createRun({ settings, runDir: join(root, 'run'), experiments: registry });
    const seed = run.frozen.manifest.worldSeeds[0] as number;
    const stop = new AbortController();
    const first = await executeRun({
      runDir: run.runDir,
      modelFor: countingInstance,
      experiments: registry,
      concurrency: 1,
      signal: stop.signal,
      onEvent: (event) => {
        if (event.type === 'request-finished' && event.requestId.endsWith(`w${seed}.w2`))
          stop.abort();
      },
    });
    expect(first.state).toBe('stopped');
    const resumed = await executeRun({
      runDir: run.runDir,
      modelFor: countingInstance,
      experiments: registry,
    });
    expect(resumed.state).toBe('completed');
    // Without the replay the fresh instance would answer fault with #1.
    expect((await seen(run.runDir, seed)).fault?.reply).toBe(`x-ops.w${seed}#3`);
  });

  it('refuses to replay an instance whose resolved request was never stored (exit 5)', async () => {
    const run = await createRun({ settings, runDir: join(root, 'run'), experiments: registry });
    const stop = new AbortController();
    await executeRun({
      runDir: run.runDir,
      modelFor: countingInstance,
      experiments: registry,
      concurrency: 1,
      signal: stop.signal,
      onEvent: (event) => {
        if (event.type === 'request-finished') stop.abort();
      },
    });
    rmSync(openRunFolder(run.runDir).paths.requestIndex);
    await expect(
      executeRun({ runDir: run.runDir, modelFor: countingInstance, experiments: registry }),
    ).rejects.toThrow(/resolved but was never stored: its instance cannot be replayed/);
  });

  it('refuses both models and modelFor', async () => {
    const run = await createRun({ settings, runDir: join(root, 'run'), experiments: registry });
    await expect(
      executeRun({
        runDir: run.runDir,
        models: new Map(),
        modelFor: countingInstance,
        experiments: registry,
      }),
    ).rejects.toThrow(/exactly one of models and modelFor/);
  });
});
