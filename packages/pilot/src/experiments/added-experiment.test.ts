import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { renderJsonBlock } from '@chi/run';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { oneRequestExperiment } from '../__fixtures__/one-request-experiment';
import { buildManifest } from '../manifest';
import { buildRunPlan } from '../plan';
import { createRun } from '../run-create';
import { executeRun } from '../run-execute';
import { scriptedSystemSpec } from '../scripted-systems';
import { defaultOfflineSettings } from '../settings';
import { modelsForManifest } from '../system-models';
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
