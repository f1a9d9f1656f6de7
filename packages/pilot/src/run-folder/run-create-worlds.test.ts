import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { requestInputBytes, reservationUsd } from '@chi/openrouter';
import type { RunManifest, SystemSpec } from '@chi/spec';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { planCost, worstCaseNotes } from '../plan/plan-cost';
import { renderPlannedRequest } from '../plan/render-planned';
import { scriptedSystemSpec } from '../scripted/scripted-systems';
import { defaultOfflineSettings, openRouterSystemSpec } from '../settings';
import { createRun, planRun, prepareRun } from './run-create';
import { runPaths } from './run-folder';
import { generateRunWorlds, memoryLoadsOf, writeRunWorlds } from './run-worlds';

// Each generation of a history world notes whether every world file of the earlier seeds was
// already written at that moment (createRun writes a seed's worlds before generating the next's).
const control = vi.hoisted(() => ({
  manifest: null as RunManifest | null,
  runDir: '',
  earlierWritten: [] as boolean[],
}));
vi.mock('@chi/worlds', async (importOriginal) => {
  const real = await importOriginal<typeof import('@chi/worlds')>();
  return {
    ...real,
    generateHistoryWorld: (options: Parameters<typeof real.generateHistoryWorld>[0]) => {
      const manifest = control.manifest;
      if (manifest !== null) {
        const paths = runPaths(control.runDir);
        const earlier = manifest.worldSeeds.slice(0, manifest.worldSeeds.indexOf(options.seed));
        control.earlierWritten.push(
          earlier.every(
            (seed) =>
              existsSync(paths.historyWorld(seed)) &&
              existsSync(paths.behaviorWorld(seed)) &&
              memoryLoadsOf(manifest).every((load) => existsSync(paths.memoryWorld(seed, load))),
          ),
        );
      }
      return real.generateHistoryWorld(options);
    },
  };
});

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'chi-create-worlds-'));
  control.manifest = null;
  control.earlierWritten = [];
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const fixedNow = () => new Date('2026-01-02T03:04:05.000Z');
const settings = () =>
  defaultOfflineSettings({
    systems: [scriptedSystemSpec('capacity-keeper')],
    replicates: 3,
    loads: [32, 64],
  });

/** Every file under `dir` with the SHA-256 of its bytes, by relative path. */
function fileHashes(dir: string): Record<string, string> {
  const hashes: Record<string, string> = {};
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    hashes[relative(dir, path)] = createHash('sha256').update(readFileSync(path)).digest('hex');
  }
  return hashes;
}

describe('createRun writes the worlds a world seed at a time', () => {
  it('writes the same world files, byte for byte, as generating every world at once', async () => {
    const run = await createRun({ settings: settings(), runDir: join(root, 'run'), now: fixedNow });
    const manifest = run.frozen.manifest;
    const allAtOnce = join(root, 'all-at-once');
    await writeRunWorlds(runPaths(allAtOnce), generateRunWorlds(manifest));
    const worldsDir = (dir: string) => fileHashes(join(dir, 'worlds'));
    expect(Object.keys(worldsDir(run.runDir)).length).toBe(
      manifest.worldSeeds.length * (memoryLoadsOf(manifest).length + 2),
    );
    expect(worldsDir(run.runDir)).toEqual(worldsDir(allAtOnce));
    // The rest of the folder is the one prepareRun describes (same manifest hash and plan).
    const prepared = prepareRun({ settings: settings(), now: fixedNow });
    expect(run.frozen.sha256).toBe(prepared.frozen.sha256);
    expect(readFileSync(runPaths(run.runDir).manifest, 'utf8')).toBe(prepared.frozen.text);
  });

  it("writes every world of a seed before generating the next seed's", async () => {
    const runDir = join(root, 'run');
    control.manifest = planRun({ settings: settings(), now: fixedNow }).frozen.manifest;
    control.runDir = runDir;
    await createRun({ settings: settings(), runDir, now: fixedNow });
    expect(control.earlierWritten).toEqual([true, true, true]);
  });
});

describe('planCost from a planned run', () => {
  it('prices exactly as rendering with every world of the run held', () => {
    const live: SystemSpec = openRouterSystemSpec({
      id: 'kimi-k3',
      model: 'moonshotai/kimi-k3',
      providers: ['moonshotai/mxfp4'],
    });
    const options = {
      settings: defaultOfflineSettings({ systems: [live], replicates: 3, loads: [32, 64] }),
      now: fixedNow,
    };
    const prepared = prepareRun(options);
    const { manifest } = prepared.frozen;
    const notes = worstCaseNotes(manifest.notebookCapBytes);
    let usd = 0;
    for (const request of prepared.plan.requests) {
      const rendered = renderPlannedRequest({
        request,
        manifest,
        worlds: prepared.worlds,
        prompts: prepared.prompts,
        notes: () => notes,
      });
      usd += reservationUsd({
        inputBytes: requestInputBytes(rendered.messages),
        maxOutputTokens: live.maxOutputTokens,
        catalogPrice: null,
        safetyPrice: live.safetyPrice,
        marginRatio: manifest.reservationMargin,
      });
    }
    const cost = planCost(planRun(options));
    expect(cost.systems[0]?.worstCaseUsd).toBe(Math.ceil(usd * 1e6) / 1e6);
    expect(cost).toEqual(planCost(prepared));
  });
});
