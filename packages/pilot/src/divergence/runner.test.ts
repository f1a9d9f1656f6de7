import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DIVERGENCE_PROTOCOL_ID, divergenceExperimentParams } from '@chi/experiments/internal';
import { runFolderPaths } from '@chi/run/internal';
import { RunManifestSchema } from '@chi/spec';
import { afterEach, describe, expect, it } from 'vitest';
import { recomputeDivergence, runDivergenceProtocol } from './run';

const FIXTURES = join(import.meta.dirname, '..', '__fixtures__', 'divergence-sequential');
const AT = new Date('2026-09-01T00:00:00.000Z');
let root: string | undefined;
afterEach(async () => {
  if (root !== undefined) await rm(root, { recursive: true, force: true });
  root = undefined;
});

const sha = (text: string) => createHash('sha256').update(text).digest('hex');

describe('the divergence protocol on the shared runner, held to the sequential executor', () => {
  it('freezes the protocol under experiments.divergence and, at concurrency 4, sends every request the sequential executor sent, byte for byte, shows the same notebooks and gets the same replies', async () => {
    root = await mkdtemp(join(tmpdir(), 'chi-divergence-runner-'));
    const runDir = join(root, 'run');
    await runDivergenceProtocol({
      runDir,
      worlds: 1,
      resamples: 10,
      now: () => AT,
      concurrency: 4,
    });
    const manifest = RunManifestSchema.parse(
      JSON.parse(await readFile(runFolderPaths(runDir).manifest, 'utf8')),
    );
    expect(manifest.protocol).toBe(DIVERGENCE_PROTOCOL_ID);
    expect(manifest.experiments.divergence).toEqual(divergenceExperimentParams());
    expect([manifest.experiments.memory, manifest.experiments.history]).toEqual([null, null]);

    const expected = JSON.parse(await readFile(join(FIXTURES, 'instances-w1.json'), 'utf8')) as {
      worldSeed: number;
      calls: number;
      instances: Record<string, string>;
    };
    expect(manifest.worldSeeds).toEqual([expected.worldSeed]);
    const { calls } = await recomputeDivergence(runDir);
    const byInstance = new Map<string, typeof calls>();
    for (const call of calls) {
      const instance = `${call.systemId}.divergence.w${call.worldSeed}.${call.arm}`;
      byInstance.set(instance, [...(byInstance.get(instance) ?? []), call]);
    }
    const found = Object.fromEntries(
      [...byInstance].map(([instance, list]) => [
        instance,
        sha(
          JSON.stringify(
            list.map((c) => [
              c.requestId,
              c.requestSha256,
              c.notesShownSha256,
              sha(c.result.text ?? ''),
              c.notebookAfter.sha256,
              c.operations,
            ]),
          ),
        ),
      ]),
    );
    if (process.env.UPDATE_GOLDEN === '1') {
      // Only instances the fixture does not have yet are added (issue 31's replicate arms); an
      // instance it has must still match what the sequential executor sent.
      const added = Object.fromEntries(
        Object.entries(found).filter(([instance]) => !(instance in expected.instances)),
      );
      const instances = Object.fromEntries(
        Object.entries({ ...expected.instances, ...added }).sort(([a], [b]) => (a < b ? -1 : 1)),
      );
      await writeFile(
        join(FIXTURES, 'instances-w1.json'),
        `${JSON.stringify({ ...expected, calls: calls.length, instances }, null, 2)}\n`,
      );
      return;
    }
    expect(calls).toHaveLength(expected.calls);
    expect(found).toEqual(expected.instances);
  });

  it('publishes the estimate files the sequential executor published for the same seeds, byte for byte', async () => {
    root = await mkdtemp(join(tmpdir(), 'chi-divergence-estimates-'));
    const runDir = join(root, 'run');
    await runDivergenceProtocol({ runDir, worlds: 2, resamples: 200, now: () => AT });
    const release = runFolderPaths(runDir).releaseDir;
    for (const name of ['divergence-trajectory.csv', 'divergence-dynamics.csv']) {
      if (process.env.UPDATE_GOLDEN === '1')
        await writeFile(join(FIXTURES, name), await readFile(join(release, name), 'utf8'));
      expect(await readFile(join(release, name), 'utf8'), name).toBe(
        await readFile(join(FIXTURES, name), 'utf8'),
      );
    }
  });
});
