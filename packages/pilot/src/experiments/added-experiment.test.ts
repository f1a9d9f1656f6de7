import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineExperimentScorer } from '@chi/experiment';
import { BUILT_IN_SCORERS, verifyRelease } from '@chi/report';
import { readRunFolder, scoreRun } from '@chi/report/internal';
import { renderJsonBlock } from '@chi/run';
import type { ChatModel, ChatRequest, ChatResult } from '@chi/spec';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { oneRequestExperiment } from '../__fixtures__/one-request-experiment';
import { buildManifest } from '../manifest';
import { runPilot } from '../pilot';
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

/** A model that answers every request `ok` (the echo's task has no scripted reply). */
function okModel(id: string): ChatModel {
  const at = '2026-09-01T00:00:00.000Z';
  return {
    specificationVersion: 'chi-chat-v1',
    provider: 'scripted',
    modelId: `test/${id}`,
    evidenceClass: 'scripted_baseline',
    async generate(request: ChatRequest): Promise<ChatResult> {
      return {
        requestId: request.requestId,
        evidenceClass: 'scripted_baseline',
        text: 'ok',
        failure: 'none',
        failureDetail: null,
        finishReason: 'stop',
        truncated: false,
        requestedModel: `test/${id}`,
        returnedModel: `test/${id}`,
        returnedProvider: 'scripted',
        generationId: null,
        usage: {
          promptTokens: null,
          completionTokens: null,
          reasoningTokens: null,
          totalTokens: null,
          costUsd: 0,
        },
        startedAt: at,
        finishedAt: at,
        latencyMs: 0,
        tries: [
          {
            tryIndex: 0,
            startedAt: at,
            status: null,
            failure: 'none',
            detail: null,
            waitMs: null,
            waitSource: null,
          },
        ],
        reservedUsd: 0,
        chargedUsd: 0,
        redactedResponse: null,
      };
    },
  };
}

/**
 * The echo's scorer with both capabilities: per block (what the pilot's memory, history and
 * behavior use) and per world (what the opt-in environments use). It records the blocks it
 * receives, so the test sees that `scoreRun` fed it in the same pass as the built-in scorers.
 */
function echoScorer(received: string[]) {
  return defineExperimentScorer<{ words: number }>({
    specificationVersion: 'chi-scorer-v1',
    experimentId: 'x-echo',
    title: 'Echo (test module)',
    parametersOf: (manifest) =>
      (manifest.experiments.added?.['x-echo'] as { words: number } | undefined) ?? null,
    notes: ['A test module: the share of replies that are exactly ok.'],
    columns: ['ok'],
    estimands: [{ column: 'ok', label: 'replies that are ok' }],
    scoreWorld: ({ requests }) => ({
      values: { ok: requests.filter((r) => r.reply === 'ok').length / requests.length },
      traces: [],
    }),
    blocks: {
      blockExperiments: ['x-echo'],
      world: (_records, block) => block.worldSeed,
      worldFile: (_records, block) => `worlds/x-echo-w${block.worldSeed}`,
      scoreBlock: ({ block, systemId, blockComplete, requests }) => {
        received.push(`${systemId}|${block.blockId}`);
        const where = { systemId, worldSeed: block.worldSeed, blockComplete };
        return {
          observations: [
            {
              ...where,
              blockId: block.blockId,
              unusableRequests: [],
              replies: requests.map((r) => r.reply),
            },
          ],
          traces: requests.map((r) => ({
            ...where,
            requestId: r.request.requestId,
            reply: r.reply,
          })),
        };
      },
      traceFile: (line: { systemId: string }) => `traces/${line.systemId}/x-echo-blocks.jsonl`,
    },
  });
}

describe('an added experiment is scored through the same path as the built-in ones', () => {
  it('its scorer receives its blocks in the one scoring pass, beside the built-ins, and its files verify', async () => {
    const root = mkdtempSync(join(tmpdir(), 'chi-added-scored-'));
    try {
      const received: string[] = [];
      const scorers = [...BUILT_IN_SCORERS, echoScorer(received)];
      const outcome = await runPilot({
        settings: defaultOfflineSettings({
          systems: [scriptedSystemSpec('perfect'), scriptedSystemSpec('abstainer')],
          replicates: 2,
          resamples: 20,
          templates: ['x-echo'],
        }),
        experiments: registry,
        models: new Map(['perfect', 'abstainer'].map((id) => [id, okModel(id)])),
        scorers,
        runDir: join(root, 'run'),
        now: () => new Date('2026-09-01T00:00:00.000Z'),
      });
      expect(outcome.exitCode).toBe(0);
      // the release (written and verified with the same list) holds both capabilities' files
      const releaseDir = outcome.releaseDir ?? '';
      expect(existsSync(join(releaseDir, 'traces', 'perfect', 'x-echo-blocks.jsonl'))).toBe(true);
      expect(existsSync(join(releaseDir, 'chart-data', 'x-echo.json'))).toBe(true);
      expect((await verifyRelease(releaseDir, { scorers })).mismatches).toEqual([]);

      received.length = 0;
      const records = await readRunFolder(outcome.runDir);
      const scores = scoreRun(records, { scorers });
      const worlds = records.manifest.worldSeeds;
      expect(received).toEqual(
        worlds.flatMap((seed) => ['perfect', 'abstainer'].map((id) => `${id}|x-echo.w${seed}`)),
      );
      const echo = scores.modules.get('x-echo');
      expect(echo?.observations).toHaveLength(4);
      expect(echo?.traces).toHaveLength(4);
      expect(echo?.worlds?.observations.map((o) => o.values.ok)).toEqual([1, 1, 1, 1]);
      // the built-ins were fed in the same pass: the run has none of their blocks
      expect([...scores.modules.keys()]).toEqual(scorers.map((s) => s.experimentId));
      expect(scores.memory).toEqual([]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  }, 300_000);
});
