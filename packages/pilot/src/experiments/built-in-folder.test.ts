/**
 * A built-in experiment added the way the issue asks ("a new folder plus one registry line"):
 * `__fixtures__/tally/` holds the whole experiment (module, declared prompt, scripted policies,
 * scorer) and the registry below is the real one plus that line. Nothing in the core names it:
 * the spec accepts its ID and tasks, the manifest keys its parameters by its ID, the scripted
 * systems answer with its policies and the report scores, releases and verifies it.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BUILT_IN_EXPERIMENTS, type BuiltInExperiment, type BuiltInHost } from '@chi/experiments';
import { BUILT_IN_SCORERS, verifyRelease } from '@chi/report';
import { RunManifestSchema } from '@chi/spec';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { tally } from '../__fixtures__/tally';
import { modelsForManifest } from '../endpoints/system-models';
import { runPilot } from '../pilot';
import { createRun } from '../run-folder/run-create';
import { executeRun } from '../runner/run-execute';
import { scriptedSystemSpec } from '../scripted/scripted-systems';
import { defaultOfflineSettings } from '../settings';
import { checkExperimentContract } from './contract';
import type { PilotHost } from './experiment';
import { PILOT_EXPERIMENTS } from './registry';

/** The registry of this test: the real one plus one line. */
const registry: readonly BuiltInExperiment[] = [...BUILT_IN_EXPERIMENTS, tally];

const SYSTEMS = ['perfect', 'latest-wins', 'abstainer'];
const settings = defaultOfflineSettings({
  systems: SYSTEMS.map((name) => scriptedSystemSpec(name)),
  replicates: 2,
  resamples: 20,
  templates: ['tally'],
});
const root = mkdtempSync(join(tmpdir(), 'chi-built-in-folder-'));
let releaseDir = '';
let runDir = '';
beforeAll(async () => {
  const outcome = await runPilot({
    settings,
    builtIns: registry,
    runDir: join(root, 'run'),
    now: () => new Date('2026-09-01T00:00:00.000Z'),
  });
  expect(outcome.exitCode).toBe(0);
  releaseDir = outcome.releaseDir ?? '';
  runDir = outcome.runDir;
}, 300_000);
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('a built-in experiment added as a folder plus one registry line', () => {
  it('runs through the pilot with its parameters under its own ID and its tasks in the plan', () => {
    const manifest = RunManifestSchema.parse(
      JSON.parse(readFileSync(join(runDir, 'manifest.json'), 'utf8')),
    );
    expect(manifest.experiments).toEqual({
      memory: null,
      history: null,
      behavior: null,
      tally: { items: 6 },
    });
    expect(manifest.prompts.map((prompt) => prompt.name)).toContain('tally');
    const plan = JSON.parse(readFileSync(join(runDir, 'plan.json'), 'utf8')) as {
      requests: { task: string; experiment: string }[];
    };
    expect(new Set(plan.requests.map((request) => request.task))).toEqual(
      new Set(['tally_count', 'tally_check']),
    );
    expect(new Set(plan.requests.map((request) => request.experiment))).toEqual(new Set(['tally']));
  });

  it('passes the experiment contract suite, the scripted systems answering with its policy', () => {
    const result = checkExperimentContract(tally.experiment, { settings, builtIns: registry });
    expect(result.problems).toEqual([]);
    expect(result.replies.size).toBe(result.requests.length);
  });

  it('is scored from its scripted policies, with its report section and release files, and verifies', async () => {
    for (const file of [
      'scores/tally.jsonl',
      'chart-data/tally.json',
      'chart-data/tally.csv',
      'chart-data/per-world-tally.csv',
      'traces/perfect/tally.jsonl',
    ])
      expect(existsSync(join(releaseDir, file)), file).toBe(true);
    const scores = readFileSync(join(releaseDir, 'scores', 'tally.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { systemId: string; values: { correct: number } });
    // hand-worked from scripted.ts: perfect counts right, latest-wins one too many, abstainer nothing
    const correct = (id: string) =>
      scores.filter((s) => s.systemId === id).map((s) => s.values.correct);
    expect(correct('perfect')).toEqual([1, 1]);
    expect(correct('latest-wins')).toEqual([0, 0]);
    expect(correct('abstainer')).toEqual([0, 0]);
    const report = readFileSync(join(releaseDir, 'report.md'), 'utf8');
    expect(report).toContain('## Tally (test fixture)');
    expect(readFileSync(join(releaseDir, 'SHA256SUMS'), 'utf8')).toContain('scores/tally.jsonl');
    const verified = await verifyRelease(releaseDir, {
      scorers: [...BUILT_IN_SCORERS, tally.scorer],
    });
    expect(verified.mismatches).toEqual([]);
    expect(verified.ok).toBe(true);
  });

  it('without the registry line its ID is an outside experiment’s (x-<name>), and its run will not open', async () => {
    await expect(
      createRun({
        settings,
        runDir: join(root, 'unregistered'),
        experiments: [...PILOT_EXPERIMENTS, tally.experiment],
      }),
    ).rejects.toThrow(/needs an ID x-<name>.*"tally"/);
    await expect(
      executeRun({
        runDir,
        models: modelsForManifest(
          RunManifestSchema.parse(JSON.parse(readFileSync(join(runDir, 'manifest.json'), 'utf8'))),
        ),
      }),
    ).rejects.toThrow(/registered experiment tally, which this registry does not have/);
  });

  it('is typed against BuiltInHost, which the pilot’s host (its settings and worlds) satisfies', () => {
    expectTypeOf<PilotHost>().toExtend<BuiltInHost>();
  });

  it('touched its folder and this test, no core file, registry, schema or help text', () => {
    const repo = fileURLToPath(new URL('../../../../', import.meta.url));
    const folder = 'packages/pilot/src/__fixtures__/tally/';
    const naming = sourceFiles(repo).filter((file) => {
      const text = readFileSync(join(repo, file), 'utf8');
      return /tally_count|tally_check|__fixtures__\/tally|tallyExperiment/.test(text);
    });
    expect(naming.filter((file) => !file.startsWith(folder))).toEqual([
      'packages/pilot/src/experiments/built-in-folder.test.ts',
    ]);
    expect(naming.filter((file) => file.startsWith(folder)).length).toBeGreaterThan(0);
  });
});

/** Every code and configuration file of the repository (relative paths), without builds. */
function sourceFiles(repo: string, dir = ''): string[] {
  const skip = new Set(['node_modules', 'dist', '.git', 'verifier', '.turbo', 'api']);
  return readdirSync(join(repo, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = dir === '' ? entry.name : `${dir}/${entry.name}`;
    if (entry.isDirectory()) return skip.has(entry.name) ? [] : sourceFiles(repo, path);
    return /\.(ts|mjs|json)$/.test(entry.name) ? [path] : [];
  });
}
