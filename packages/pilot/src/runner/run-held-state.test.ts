import { createHash } from 'node:crypto';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import type { NotebookContent } from '@chi/experiments/internal';
import type { RequestOutcome } from '@chi/run';
import type { ChatModel, ChatResult, PlannedRequest, RunManifest, RunPlan } from '@chi/spec';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { planIndexOf, planOf, stubSession } from '../__fixtures__/plan-shape';
import { scriptedNameOf } from '../endpoints/system-models';
import { createRun } from '../run-folder/run-create';
import { runPaths } from '../run-folder/run-folder';
import {
  generateRunWorlds,
  type RunWorldMaps,
  readRunWorlds,
  readSeedWorlds,
} from '../run-folder/run-worlds';
import { createScriptedModel, scriptedSystemSpec } from '../scripted/scripted-systems';
import { defaultOfflineSettings } from '../settings';
import { executeRun } from './run-execute';
import {
  countPendingRequests,
  keptBlocksOf,
  noteNotebookWriter,
  recordOutcome,
} from './run-held-state';
import type { RunSession } from './run-session';

// `holdAll` switches the release off: outcomes kept whole, nothing dropped (the runner before it).
const control = vi.hoisted(() => ({ holdAll: false, sessions: [] as RunSession[] }));
vi.mock('./run-held-state', async (importOriginal) => {
  const real = await importOriginal<typeof import('./run-held-state')>();
  return {
    ...real,
    recordOutcome: (
      session: RunSession,
      ordinal: number,
      outcome: Exclude<RequestOutcome, { kind: 'blocked' }>,
    ) => {
      if (!control.sessions.includes(session)) control.sessions.push(session);
      if (control.holdAll) session.outcomes.set(ordinal, outcome);
      else real.recordOutcome(session, ordinal, outcome);
    },
    recordBlocked: (session: RunSession, ordinal: number, by: number) => {
      if (control.holdAll) session.outcomes.set(ordinal, { kind: 'blocked', by: '' }, by);
      else real.recordBlocked(session, ordinal, by);
    },
    noteNotebookWriter: (session: RunSession, key: string, block: number) => {
      if (!control.holdAll) real.noteNotebookWriter(session, key, block);
    },
  };
});

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'chi-held-'));
  control.sessions = [];
});
afterEach(
  () => process.env.KEEP_HELD === undefined && rmSync(root, { recursive: true, force: true }),
);

const settings = () =>
  defaultOfflineSettings({
    systems: [scriptedSystemSpec('capacity-keeper'), scriptedSystemSpec('latest-wins')],
    replicates: 3,
    loads: [32, 64],
  });

/** Every file of a folder with its SHA-256, by relative path. */
function folderHashes(dir: string): Record<string, string> {
  const hashes: Record<string, string> = {};
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    // The wall-clock time a session took is the one field of a run folder that is not repeatable.
    const text = readFileSync(path, 'utf8').replace(/"elapsedMs":\s*\d+/g, '"elapsedMs":0');
    hashes[relative(dir, path)] = createHash('sha256').update(text).digest('hex');
  }
  return hashes;
}

const fixedNow = () => new Date('2026-01-02T03:04:05.000Z');

/** The scripted systems of a manifest on the fixed clock (their results' timestamps too). */
function fixedModels(manifest: RunManifest): Map<string, ChatModel> {
  return new Map(
    manifest.systems.map((system) => [
      system.id,
      createScriptedModel(scriptedNameOf(system), { now: fixedNow }),
    ]),
  );
}

/** Executes a copy of `template`, stopped after `stopAfter` requests and resumed if given. */
async function executeCopy(template: string, name: string, stopAfter?: number): Promise<string> {
  const runDir = join(root, name);
  cpSync(template, runDir, { recursive: true });
  const manifest = (await createRunManifest(runDir)).manifest;
  if (stopAfter !== undefined) {
    const abort = new AbortController();
    let finished = 0;
    await executeRun({
      runDir,
      models: fixedModels(manifest),
      concurrency: 1,
      now: fixedNow,
      signal: abort.signal,
      onEvent: (event) => {
        if (event.type === 'request-finished' && ++finished === stopAfter) abort.abort();
      },
    });
  }
  const outcome = await executeRun({
    runDir,
    models: fixedModels(manifest),
    // One in flight: with more, the order of log lines follows the disk's timing.
    concurrency: 1,
    now: fixedNow,
  });
  expect(outcome.state).toBe('completed');
  return runDir;
}

async function createRunManifest(runDir: string) {
  const { readFrozenManifest } = await import('../run-folder/manifest');
  return readFrozenManifest(runDir);
}

describe('held state of the request phase', () => {
  it('reads one seed on demand exactly as the full read and the generator give it', async () => {
    const run = await createRun({ settings: settings(), runDir: join(root, 'run') });
    const manifest = run.frozen.manifest;
    const full = await readRunWorlds(runPaths(run.runDir), manifest);
    const generated = generateRunWorlds(manifest);
    const onDemand: RunWorldMaps = { memory: new Map(), history: new Map(), behavior: new Map() };
    for (const seed of [...manifest.worldSeeds].reverse())
      await readSeedWorlds(runPaths(run.runDir), manifest, seed, onDemand);
    for (const kind of ['memory', 'history', 'behavior'] as const) {
      expect(onDemand[kind].size).toBe(full[kind].size);
      for (const [key, world] of full[kind]) {
        expect(onDemand[kind].get(key as never)).toEqual(world);
        expect(generated[kind].get(key as never)).toEqual(world);
      }
    }
  });

  it('leaves the run folder byte-identical with and without the release, fresh and resumed', async () => {
    const created = await createRun({ settings: settings(), runDir: join(root, 'template') });
    const template = created.runDir;
    const requests = created.plan.requests.length;
    for (const stopAfter of [undefined, 7, Math.floor(requests / 2)]) {
      control.holdAll = true;
      const held = folderHashes(await executeCopy(template, `held-${stopAfter}`, stopAfter));
      control.holdAll = false;
      control.sessions = [];
      const released = folderHashes(
        await executeCopy(template, `released-${stopAfter}`, stopAfter),
      );
      expect(released).toEqual(held);
      // The release did happen: nothing is held once every request has its outcome.
      const last = control.sessions.at(-1) as RunSession;
      expect(last.held.worlds.memory.size + last.held.worlds.history.size).toBe(0);
      expect(last.held.notebookWriters.size).toBe(0);
      expect(last.notebooks.size).toBe(last.held.startingKeys.size);
      expect(last.held.pendingByBlock.every((count) => count === 0)).toBe(true);
    }
  });
});

/** Every request the given one depends on, directly or through others. */
function ancestors(plan: RunPlan, requestId: string, into = new Set<string>()): Set<string> {
  const request = plan.requests.find((entry) => entry.requestId === requestId);
  for (const dependency of request?.dependsOn ?? []) {
    into.add(dependency);
    ancestors(plan, dependency, into);
  }
  return into;
}

/** The kept blocks of every request as they were computed on the whole plan, by request ID. */
function referenceKeptBlocks(plan: RunPlan): Map<string, readonly string[]> {
  const blocks = new Map<string, readonly string[]>();
  for (const request of plan.requests) {
    const own = new Set([request.blockId]);
    const named = request.notebookSource;
    const needs =
      named !== undefined && named.kind !== 'empty'
        ? [...request.dependsOn, named.requestId]
        : request.dependsOn;
    for (const dependency of needs)
      for (const block of blocks.get(dependency) ?? []) own.add(block);
    blocks.set(request.requestId, [...own]);
  }
  return blocks;
}

describe('keptBlocksOf (property)', () => {
  it('packs exactly the blocks the whole-plan computation keeps for each request', () => {
    const shape = fc.array(
      fc.record({
        block: fc.nat(6),
        deps: fc.array(fc.nat(30), { maxLength: 3 }),
        source: fc.nat(40),
      }),
      { minLength: 1, maxLength: 30 },
    );
    fc.assert(
      fc.property(shape, (entries) => {
        const base = planOf(entries);
        const plan = {
          ...base,
          requests: base.requests.map((request, ordinal) => {
            const source = entries[ordinal]?.source ?? 40;
            return source < ordinal
              ? { ...request, notebookSource: { kind: 'request', requestId: `r${source}` } }
              : request;
          }),
        } as RunPlan;
        const index = planIndexOf(plan);
        const kept = keptBlocksOf(index);
        const reference = referenceKeptBlocks(plan);
        plan.requests.forEach((request, ordinal) => {
          const packed = [...kept.items.subarray(kept.offsets[ordinal], kept.offsets[ordinal + 1])];
          expect(packed.map((block) => index.blockIdAt(block))).toEqual(
            reference.get(request.requestId),
          );
        });
      }),
    );
  });
});

describe('release of notebooks (property)', () => {
  it('keeps every notebook a pending request may read, and nothing once all are resolved', () => {
    const shape = fc.array(
      fc.record({ block: fc.nat(4), deps: fc.array(fc.nat(30), { maxLength: 3 }) }),
      { minLength: 1, maxLength: 30 },
    );
    fc.assert(
      fc.property(
        shape,
        fc.nat(30),
        fc.array(fc.nat(), { maxLength: 40 }),
        (entries, resumed, picks) => {
          const plan = planOf(entries);
          const { index, session } = stubSession(plan);
          const resolve = (ordinal: number) => {
            const request = plan.requests[ordinal] as PlannedRequest;
            session.notebooks.set(`n|${request.requestId}`, {} as NotebookContent);
            noteNotebookWriter(session, `n|${request.requestId}`, index.blockOf(ordinal));
            recordOutcome(session, ordinal, {
              kind: 'resolved',
              result: { failure: 'none', tries: [], chargedUsd: 0 } as unknown as ChatResult,
            });
          };
          const done = (requestId: string) =>
            session.outcomes.has(plan.requests.findIndex((entry) => entry.requestId === requestId));
          const ready = () =>
            plan.requests.flatMap((request, ordinal) =>
              !session.outcomes.has(ordinal) && request.dependsOn.every(done) ? [ordinal] : [],
            );
          // Earlier sessions resolved some requests in a valid order; this one counts the rest.
          for (let count = 0; count < resumed && ready().length > 0; count += 1)
            resolve(ready()[0] as number);
          countPendingRequests(session);
          let step = 0;
          while (ready().length > 0) {
            plan.requests.forEach((request, ordinal) => {
              if (session.outcomes.has(ordinal)) return;
              for (const dependency of ancestors(plan, request.requestId))
                if (done(dependency)) expect(session.notebooks.has(`n|${dependency}`)).toBe(true);
            });
            const choices = ready();
            resolve(choices[(picks[step++] ?? 0) % choices.length] as number);
          }
          expect(session.notebooks.size).toBe(0);
          expect(session.held.pendingByBlock.every((count) => count === 0)).toBe(true);
        },
      ),
    );
  });
});

describe('instance models', () => {
  it('makes each instance once and drops it once its block has no request left', async () => {
    const run = await createRun({ settings: settings(), runDir: join(root, 'run'), now: fixedNow });
    const manifest = run.frozen.manifest;
    const made: string[] = [];
    control.sessions = [];
    const outcome = await executeRun({
      runDir: run.runDir,
      modelFor: (system, instanceKey) => {
        made.push(`${system.id}|${instanceKey}`);
        return createScriptedModel(scriptedNameOf(system), { now: fixedNow });
      },
      now: fixedNow,
    });
    expect(outcome.state).toBe('completed');
    const pairs = new Set(
      run.plan.requests.map((request) => `${request.systemId}|${request.blockId}`),
    );
    expect([...made].sort()).toEqual([...pairs].sort());
    expect(manifest.systems.length).toBeGreaterThan(1);
    const last = control.sessions.at(-1) as RunSession;
    expect(last.instanceModels.size).toBe(0);
  });
});

describe('world files', () => {
  it('names a missing world file before anything is sent or written', async () => {
    const run = await createRun({ settings: settings(), runDir: join(root, 'run') });
    const manifest = run.frozen.manifest;
    const last = manifest.worldSeeds.at(-1) as number;
    const missing = runPaths(run.runDir).historyWorld(last);
    rmSync(missing);
    await expect(executeRun({ runDir: run.runDir, models: fixedModels(manifest) })).rejects.toThrow(
      `damaged run folder: ${missing}: the world file is missing`,
    );
    expect(readdirSync(run.runDir)).not.toContain('attempts.jsonl');
  });
});
