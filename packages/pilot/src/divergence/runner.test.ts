import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readAttemptLog, runFolderPaths } from '@chi/run';
import { RunManifestSchema } from '@chi/spec';
import { afterEach, describe, expect, it } from 'vitest';
import { divergenceExperiment, divergenceExperimentParams } from '../experiments/divergence';
import { loadPromptTemplates } from '../prompts';
import { createRun } from '../run-create';
import { executeRun } from '../run-execute';
import { defaultOfflineSettings } from '../settings';
import { type DivergenceCallRecord, executeDivergence } from './execute';
import { buildDivergenceManifest, divergenceManifestSha256 } from './manifest';
import { DIVERGENCE_PROTOCOL_ID } from './protocol';
import {
  DIVERGENCE_ANALYSIS_SEED,
  DIVERGENCE_SCRIPTED_SEED,
  scriptedDivergenceModels,
} from './run';
import {
  DIVERGENCE_SYSTEM_NAMES,
  divergenceSystemSpec,
  scriptedDivergenceInstance,
} from './scripted-divergence';

const prompts = loadPromptTemplates();
const systems = DIVERGENCE_SYSTEM_NAMES.map((name) =>
  divergenceSystemSpec(name, DIVERGENCE_SCRIPTED_SEED),
);
const registry = [divergenceExperiment];
let root: string | undefined;
afterEach(async () => {
  if (root !== undefined) await rm(root, { recursive: true, force: true });
  root = undefined;
});

/** What the sequential executor sends for the same worlds and systems, by request ID. */
async function sequentialCalls(worldSeeds: readonly number[]): Promise<DivergenceCallRecord[]> {
  const manifest = buildDivergenceManifest({
    worldSeeds,
    systems,
    prompts,
    createdAt: '2026-09-01T00:00:00.000Z',
    analysisSeed: DIVERGENCE_ANALYSIS_SEED,
  });
  const lines: DivergenceCallRecord[] = [];
  await executeDivergence({
    manifest,
    manifestSha256: divergenceManifestSha256(manifest),
    prompts,
    modelFor: scriptedDivergenceModels(manifest),
    record: async (line) => {
      if (line.kind === 'divergence-call') lines.push(line);
    },
  });
  return lines;
}

describe('the divergence experiment module on the shared runner', () => {
  it('freezes the protocol under experiments.divergence and sends every request the sequential executor sends, byte for byte, with the same replies', async () => {
    root = await mkdtemp(join(tmpdir(), 'chi-divergence-runner-'));
    const settings = defaultOfflineSettings({ systems, replicates: 1 });
    const run = await createRun({
      settings,
      runDir: join(root, 'run'),
      experiments: registry,
      now: () => new Date('2026-09-01T00:00:00.000Z'),
    });
    const manifest = RunManifestSchema.parse(
      JSON.parse(await readFile(runFolderPaths(run.runDir).manifest, 'utf8')),
    );
    expect(manifest.protocol).toBe(DIVERGENCE_PROTOCOL_ID);
    expect(manifest.experiments.divergence).toEqual(divergenceExperimentParams());
    expect([manifest.experiments.memory, manifest.experiments.history]).toEqual([null, null]);

    const outcome = await executeRun({
      runDir: run.runDir,
      modelFor: scriptedDivergenceInstance,
      experiments: registry,
      concurrency: 4,
    });
    expect(outcome.state).toBe('completed');

    const attempts = await readAttemptLog(runFolderPaths(run.runDir).attempts);
    const sent = new Map(
      attempts.filter((a) => a.phase === 'after_response').map((a) => [a.requestId, a]),
    );
    const calls = await sequentialCalls(manifest.worldSeeds);
    expect([...sent.keys()].sort()).toEqual(calls.map((call) => call.requestId).sort());
    for (const call of calls) {
      const attempt = sent.get(call.requestId);
      expect(attempt?.requestSha256, call.requestId).toBe(call.requestSha256);
      expect(attempt?.result?.text, call.requestId).toBe(call.result.text);
    }
  });
});
