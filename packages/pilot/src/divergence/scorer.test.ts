import { cp, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ScorerWorldInput, ScorerWorldResult } from '@chi/experiment';
import { experimentScorerProblems } from '@chi/experiment/test';
import { type DivergenceCallLine, divergenceScorer } from '@chi/experiments/internal';
import { RunFolderDamagedError } from '@chi/spec';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { chisLogFiles } from './release-evidence';
import { divergencePaths, recomputeDivergence, runDivergenceProtocol } from './run';

// One offline run of two worlds (three scripted systems), shared by the checks below.
const AT = new Date('2026-09-01T00:00:00.000Z');
let root: string;
let runDir: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'chi-divergence-scorer-'));
  runDir = join(root, 'run');
  await runDivergenceProtocol({ runDir, worlds: 2, resamples: 10, now: () => AT });
});
afterAll(async () => {
  vi.restoreAllMocks();
  await rm(root, { recursive: true, force: true });
});

describe('the divergence release scores through divergenceScorer', () => {
  it('calls scoreWorld once for every system on every world, with requests the scorer contract accepts', async () => {
    const inputs: ScorerWorldInput<unknown>[] = [];
    const original = divergenceScorer.scoreWorld?.bind(divergenceScorer);
    if (original === undefined) throw new Error('divergenceScorer has no scoreWorld');
    const spy = vi.spyOn(divergenceScorer, 'scoreWorld').mockImplementation((input) => {
      inputs.push(input);
      return original(input);
    });
    const release = divergencePaths(runDir).releaseDir;
    const recomputed = await recomputeDivergence(release);
    spy.mockRestore();
    const { manifest } = recomputed;
    expect(inputs.map((input) => `${input.systemId}|${input.worldSeed}`).sort()).toEqual(
      manifest.worldSeeds
        .flatMap((seed) => manifest.systems.map((system) => `${system.id}|${seed}`))
        .sort(),
    );
    // every request of the system on the world, with its messages as sent and its logged result
    for (const input of inputs) {
      expect(input.requests.length).toBe(manifest.requestsPerWorldPerSystem);
      expect(input.requests.every((r) => r.messages !== null && r.result != null)).toBe(true);
    }
    expect(experimentScorerProblems(divergenceScorer, inputs.slice(0, 2))).toEqual([]);
  });

  it("publishes what the scorer read: the CHIS log is built from scoreWorld's trace lines", async () => {
    const original = divergenceScorer.scoreWorld?.bind(divergenceScorer);
    if (original === undefined) throw new Error('divergenceScorer has no scoreWorld');
    // A scorer that reads every probe as 0.25 accurate: the recomputed entries must say so.
    const spy = vi
      .spyOn(divergenceScorer, 'scoreWorld')
      .mockImplementation((input): ScorerWorldResult => {
        const result = original(input);
        return {
          ...result,
          traces: result.traces.map((line) =>
            (line as DivergenceCallLine).role === 'probe' ? { ...line, accuracy: 0.25 } : line,
          ),
        };
      });
    const altered = await recomputeDivergence(runDir);
    spy.mockRestore();
    expect(altered.entries.length).toBeGreaterThan(0);
    expect(altered.entries.every((entry) => entry.profile.accuracy === 0.25)).toBe(true);
    // and unaltered, the scorer's reading is the CHIS log the run wrote, byte for byte
    const recomputed = await recomputeDivergence(runDir);
    for (const [path, text] of chisLogFiles(recomputed.manifest, recomputed.entries))
      expect(await readFile(join(runDir, path), 'utf8'), path).toBe(text);
  });

  it('reads the messages as sent: a release that lost a payload is damaged, named (exit 5)', async () => {
    const copy = join(root, 'lost-payload');
    await cp(divergencePaths(runDir).releaseDir, copy, { recursive: true });
    const payloads = divergencePaths(copy).payloadsDir;
    const [first] = (await readdir(payloads)).sort();
    if (first === undefined) throw new Error('the release has no payloads');
    await rm(join(payloads, first));
    const error = await recomputeDivergence(copy).catch((caught: unknown) => caught);
    expect(RunFolderDamagedError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain(first);
  });
});
