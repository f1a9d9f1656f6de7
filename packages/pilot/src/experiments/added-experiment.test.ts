import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  isMemoryObservation,
  type ObservationBase,
  observationsOf,
  type TraceLineBase,
  traceLinesOf,
} from '@chi/analysis';
import { renderJsonBlock } from '@chi/experiment';
import { BUILT_IN_SCORERS, verifyRelease } from '@chi/report';
import { readRunFolder, scoreRun } from '@chi/report/internal';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  ONE_FOLDER_ID,
  okModel,
  oneFolderExperiment,
  oneFolderScorer,
} from '../__fixtures__/one-folder-experiment';
import { oneRequestExperiment } from '../__fixtures__/one-request-experiment';
import { modelsForManifest } from '../endpoints/system-models';
import { runPilot } from '../pilot';
import { buildRunPlan } from '../plan/plan';
import { buildManifest } from '../run-folder/manifest';
import { createRun } from '../run-folder/run-create';
import { executeRun } from '../runner/run-execute';
import { scriptedSystemSpec } from '../scripted/scripted-systems';
import { defaultOfflineSettings } from '../settings';
import { checkExperimentContract } from './contract';
import type { AnyExperiment } from './experiment';
import { PILOT_EXPERIMENTS } from './registry';

/** A minimal added experiment: one request per world asking the scripted system's smoke task. */
const echo = oneRequestExperiment<{ words: number }>({
  id: 'x-echo',
  params: { words: 3 },
  parameters: z.strictObject({ words: z.int() }),
  render: ({ request }) => ({
    task: 'x-echo',
    template: { name: 'x-echo', version: '1' },
    messages: [
      {
        role: 'user',
        content: renderJsonBlock('REQUEST', { task: 'x-echo', nonce: request.nonce }),
      },
    ],
  }),
});

const registry: readonly AnyExperiment[] = [...PILOT_EXPERIMENTS, echo];
const settings = defaultOfflineSettings({
  systems: [scriptedSystemSpec('perfect')],
  replicates: 1,
  templates: ['x-echo'],
});
const manifestWith = (experiments: readonly AnyExperiment[], templates = ['x-echo']) =>
  buildManifest({
    settings: { ...settings, templates },
    worldSeeds: [5],
    prompts: [],
    generators: [],
    createdAt: new Date('2026-09-01T00:00:00.000Z'),
    experiments,
  });

describe('an experiment added from outside the pilot', () => {
  it('freezes its parameters under experiments.added and its features in featureSchemas', () => {
    const manifest = manifestWith(registry);
    expect(manifest.experiments).toEqual({
      memory: null,
      history: null,
      behavior: null,
      added: { 'x-echo': { words: 3 } },
    });
    expect(manifest.featureSchemas?.map((schema) => schema.id).at(-1)).toBe('x-echo-features');
    expect(buildRunPlan(manifest, registry).requests.map((r) => r.requestId)).toEqual([
      'perfect.x-echo.w5.say',
    ]);
  });

  it('has no added key when only the pilot runs, and refuses an ID without x-', () => {
    expect('added' in manifestWith(PILOT_EXPERIMENTS, ['behavior']).experiments).toBe(false);
    expect(() => manifestWith([...PILOT_EXPERIMENTS, { ...echo, id: 'echo' }])).toThrow(
      /needs an ID x-<name>/,
    );
  });

  it('passes the contract suite', () => {
    expect(checkExperimentContract(echo, { reply: () => 'ok' }).problems).toEqual([]);
  });

  it('cannot be executed without its module (a resume must pass it again)', async () => {
    const root = mkdtempSync(join(tmpdir(), 'chi-added-'));
    try {
      const run = await createRun({ settings, runDir: join(root, 'run'), experiments: registry });
      await expect(
        executeRun({ runDir: run.runDir, models: modelsForManifest(run.frozen.manifest) }),
      ).rejects.toThrow(/added experiment x-echo; pass its module in experiments/);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

/** The one-folder fixture's per-block observations and trace lines (it gives them no kind). */
const hasReplies = (
  o: ObservationBase,
): o is ObservationBase & { readonly replies: readonly (string | null)[] } => 'replies' in o;
const hasReply = (line: TraceLineBase): line is TraceLineBase & { readonly reply: string | null } =>
  'reply' in line;

describe('an added experiment is scored through the same path as the built-in ones', () => {
  it('its scorer receives its blocks in the one scoring pass, beside the built-ins, and its files verify', async () => {
    const root = mkdtempSync(join(tmpdir(), 'chi-added-scored-'));
    try {
      const received: string[] = [];
      const scorers = [...BUILT_IN_SCORERS, oneFolderScorer(received)];
      const outcome = await runPilot({
        settings: defaultOfflineSettings({
          systems: [scriptedSystemSpec('perfect'), scriptedSystemSpec('abstainer')],
          replicates: 2,
          resamples: 20,
          templates: [ONE_FOLDER_ID],
        }),
        experiments: [...PILOT_EXPERIMENTS, oneFolderExperiment],
        models: new Map(['perfect', 'abstainer'].map((id) => [id, okModel(id)])),
        scorers,
        runDir: join(root, 'run'),
        now: () => new Date('2026-09-01T00:00:00.000Z'),
      });
      expect(outcome.exitCode).toBe(0);
      // the release (written and verified with the same list) holds both capabilities' files
      const releaseDir = outcome.releaseDir ?? '';
      expect(
        existsSync(join(releaseDir, 'traces', 'perfect', `${ONE_FOLDER_ID}-blocks.jsonl`)),
      ).toBe(true);
      expect(existsSync(join(releaseDir, 'chart-data', `${ONE_FOLDER_ID}.json`))).toBe(true);
      expect((await verifyRelease(releaseDir, { scorers })).mismatches).toEqual([]);

      received.length = 0;
      const records = await readRunFolder(outcome.runDir);
      const scores = scoreRun(records, { scorers });
      const worlds = records.manifest.worldSeeds;
      expect(received).toEqual(
        worlds.flatMap((seed) =>
          ['perfect', 'abstainer'].map((id) => `${id}|${ONE_FOLDER_ID}.w${seed}`),
        ),
      );
      // read by ID through the one accessor, typed by the module's own guards: no named field
      const replies = observationsOf(scores, ONE_FOLDER_ID, hasReplies);
      expect(replies.map((o) => o.replies)).toEqual([['ok'], ['ok'], ['ok'], ['ok']]);
      expect(traceLinesOf(scores, ONE_FOLDER_ID, hasReply)).toHaveLength(4);
      const echo = scores.modules.get(ONE_FOLDER_ID);
      expect(echo?.worlds?.observations.map((o) => o.values.ok)).toEqual([1, 1, 1, 1]);
      // the built-ins were fed in the same pass: the run has none of their blocks
      expect([...scores.modules.keys()]).toEqual(scorers.map((s) => s.experimentId));
      expect(observationsOf(scores, 'memory', isMemoryObservation)).toEqual([]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  }, 300_000);
});

describe('an experiment added in one folder', () => {
  it('touched one place outside its folder: the test that registers it (no core file, registry or schema)', () => {
    const root = fileURLToPath(new URL('../../../../', import.meta.url));
    const folder = 'packages/pilot/src/__fixtures__/one-folder-experiment/';
    const naming = sourceFiles(root).filter((file) => {
      const text = readFileSync(join(root, file), 'utf8');
      return text.includes(ONE_FOLDER_ID) || text.includes('one-folder-experiment');
    });
    expect(naming.filter((file) => !file.startsWith(folder))).toEqual([
      'packages/pilot/src/experiments/added-experiment.test.ts',
    ]);
    expect(naming.filter((file) => file.startsWith(folder)).length).toBeGreaterThan(0);
  });
});

/** Every code and configuration file of the repository (relative paths), without builds; docs may point at it. */
function sourceFiles(root: string, dir = ''): string[] {
  const skip = new Set(['node_modules', 'dist', '.git', 'verifier', '.turbo', 'api']);
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = dir === '' ? entry.name : `${dir}/${entry.name}`;
    if (entry.isDirectory()) return skip.has(entry.name) ? [] : sourceFiles(root, path);
    return /\.(ts|mjs|json)$/.test(entry.name) ? [path] : [];
  });
}
