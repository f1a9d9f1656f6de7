import { createHash } from 'node:crypto';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import type { RequestOutcome } from '@chi/run';
import type { ChatModel, ChatResult, PlannedRequest, RunManifest, RunPlan } from '@chi/spec';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { planOf } from './__fixtures__/plan-shape';
import type { NotebookContent } from './notebook';
import { createRun } from './run-create';
import { executeRun } from './run-execute';
import { runPaths } from './run-folder';
import {
  countPendingRequests,
  emptyHeldState,
  noteNotebookWriter,
  recordOutcome,
} from './run-held-state';
import type { OpenedRun } from './run-open';
import type { RunSession } from './run-session';
import { generateRunWorlds, type RunWorldMaps, readRunWorlds, readSeedWorlds } from './run-worlds';
import { createScriptedModel, scriptedSystemSpec } from './scripted-systems';
import { defaultOfflineSettings } from './settings';
import { scriptedNameOf } from './system-models';

// `holdAll` switches the release off: outcomes kept whole, nothing dropped (the runner before it).
const control = vi.hoisted(() => ({ holdAll: false, sessions: [] as RunSession[] }));
vi.mock('./run-held-state', async (importOriginal) => {
  const real = await importOriginal<typeof import('./run-held-state')>();
  return {
    ...real,
    recordOutcome: (session: RunSession, request: PlannedRequest, outcome: RequestOutcome) => {
      if (!control.sessions.includes(session)) control.sessions.push(session);
      if (control.holdAll) session.outcomes.set(request.requestId, outcome);
      else real.recordOutcome(session, request, outcome);
    },
    noteNotebookWriter: (session: RunSession, key: string, blockId: string) => {
      if (!control.holdAll) real.noteNotebookWriter(session, key, blockId);
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
  const { readFrozenManifest } = await import('./manifest');
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
      for (const outcome of last.outcomes.values())
        if (outcome.kind === 'resolved') {
          expect(outcome.result.text).toBeNull();
          expect(outcome.result.tries.length).toBeLessThanOrEqual(1);
        }
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
          const run = {
            plan,
            manifest: { worldSeeds: [], systems: [], experiments: { memory: null } },
          } as unknown as OpenedRun;
          const session = {
            run,
            outcomes: new Map(),
            notebooks: new Map(),
            instanceModels: new Map(),
            held: emptyHeldState(run, new Set()),
          } as unknown as RunSession;
          const resolve = (request: PlannedRequest) => {
            session.notebooks.set(`n|${request.requestId}`, {} as NotebookContent);
            noteNotebookWriter(session, `n|${request.requestId}`, request.blockId);
            recordOutcome(session, request, {
              kind: 'resolved',
              result: { tries: [] } as unknown as ChatResult,
            });
          };
          const ready = () =>
            plan.requests.filter(
              (request) =>
                !session.outcomes.has(request.requestId) &&
                request.dependsOn.every((dependency) => session.outcomes.has(dependency)),
            );
          // Earlier sessions resolved some requests in a valid order; this one counts the rest.
          for (let index = 0; index < resumed && ready().length > 0; index += 1)
            resolve(ready()[0] as PlannedRequest);
          countPendingRequests(session);
          let step = 0;
          while (ready().length > 0) {
            for (const request of plan.requests) {
              if (session.outcomes.has(request.requestId)) continue;
              for (const dependency of ancestors(plan, request.requestId))
                if (session.outcomes.has(dependency))
                  expect(session.notebooks.has(`n|${dependency}`)).toBe(true);
            }
            const choices = ready();
            resolve(choices[(picks[step++] ?? 0) % choices.length] as PlannedRequest);
          }
          expect(session.notebooks.size).toBe(0);
          expect(session.held.pendingByBlock.size).toBe(0);
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
