import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DivergenceAnalysis, DivergenceEstimate, DivergenceSeries } from './analyze';
import { analyzeDivergence } from './analyze';
import type { DivergenceCallRecord } from './calls';
import { compareDivergenceRelease } from './release';
import { divergencePaths, recomputeDivergence, runDivergenceProtocol } from './run';
import { divergenceEntries } from './score';
import { DIVERGENCE_SYSTEMS, scriptedDivergenceInstance } from './scripted-divergence';

// One offline run of the protocol with 16 worlds, shared by every assertion below: the scripted
// systems' true dynamics are known by construction (docs/protocol.md derives them), and the
// release must recover them within its own bootstrap error (the pointwise 95% interval).
const WORLDS = 16;
let root: string;
let runDir: string;
let analysis: DivergenceAnalysis;
let calls: DivergenceCallRecord[];
let manifestWrittenBeforeFirstCall = false;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'chi-divergence-'));
  runDir = join(root, 'run');
  let first = true;
  const result = await runDivergenceProtocol({
    runDir,
    worlds: WORLDS,
    resamples: 1000,
    now: () => new Date('2026-09-01T00:00:00.000Z'),
    modelFor: (system, blockId) => {
      if (first) manifestWrittenBeforeFirstCall = existsSync(divergencePaths(runDir).manifest);
      first = false;
      return scriptedDivergenceInstance(system, blockId);
    },
  });
  analysis = result.analysis;
  calls = (await recomputeDivergence(runDir)).calls;
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

function series(system: string, name: DivergenceSeries, checkpoint: number): DivergenceEstimate {
  const found = analysis.systems
    .find((candidate) => candidate.systemId === system)
    ?.trajectory.find((point) => point.checkpoint === checkpoint)?.series[name];
  if (found === undefined) throw new Error(`no ${name} at ${checkpoint} for ${system}`);
  return found;
}

function contains(estimate: DivergenceEstimate, value: number): boolean {
  return (estimate.lower ?? Number.NaN) <= value && value <= (estimate.upper ?? Number.NaN);
}

const follower = DIVERGENCE_SYSTEMS['notebook-follower'];
/** Expected excess of the follower after k washout updates: (1 - lambda)^(2k) (1 - 2p)^2. */
function followerExcess(washoutUpdates: number): number {
  return (
    (1 - follower.interferenceForget) ** (2 * washoutUpdates) * (1 - 2 * follower.probeFlip) ** 2
  );
}
const WASHOUT_UPDATES_BY_CHECKPOINT = [0, 0, 1, 2, 3, 3, 3];
const LATER = [2, 3, 4, 5, 6];

describe('divergence protocol, offline, scripted systems with known dynamics', () => {
  it('freezes the manifest, with the primary checkpoint, before the first request', () => {
    expect(manifestWrittenBeforeFirstCall).toBe(true);
    const manifest = JSON.parse(readFileSync(divergencePaths(runDir).manifest, 'utf8'));
    expect(manifest.experiments.divergence.primaryCheckpoint).toBe(6);
    const attempts = readFileSync(divergencePaths(runDir).attempts, 'utf8')
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as { manifestSha256: string });
    expect(attempts.every((record) => record.manifestSha256 === analysis.manifestSha256)).toBe(
      true,
    );
    const plan = JSON.parse(readFileSync(divergencePaths(runDir).plan, 'utf8'));
    expect(calls.length).toBe(plan.requests.length);
    expect(calls.length).toBe(WORLDS * 3 * 231);
  });

  it('stateless: excess divergence 0 within bootstrap error at every checkpoint', () => {
    for (let checkpoint = 0; checkpoint <= 6; checkpoint++)
      expect(
        contains(series('stateless', 'excess', checkpoint), 0),
        `checkpoint ${checkpoint}`,
      ).toBe(true);
  });

  it('notebook follower: excess decays in washout at the declared rate and persists later', () => {
    expect(series('notebook-follower', 'excess', 0).estimate).toBe(0);
    for (let checkpoint = 1; checkpoint <= 6; checkpoint++) {
      const expected = followerExcess(WASHOUT_UPDATES_BY_CHECKPOINT[checkpoint] as number);
      expect(
        contains(series('notebook-follower', 'excess', checkpoint), expected),
        `checkpoint ${checkpoint}: ${expected}`,
      ).toBe(true);
    }
    expect(series('notebook-follower', 'excess', 1).lower).toBeGreaterThan(
      series('notebook-follower', 'excess', 4).upper as number,
    );
    expect(series('notebook-follower', 'excess', 6).lower).toBeGreaterThan(0);
  });

  it('notebook follower: survives sham erasure, vanishes after erasure, follows the swapped state', () => {
    for (const checkpoint of LATER) {
      const expected = followerExcess(WASHOUT_UPDATES_BY_CHECKPOINT[checkpoint] as number);
      expect(contains(series('notebook-follower', 'shamExcess', checkpoint), expected)).toBe(true);
      const erased = series('notebook-follower', 'eraseExcess', checkpoint);
      expect([erased.estimate, erased.lower, erased.upper]).toEqual([0, 0, 0]);
      expect(series('notebook-follower', 'swapFollowsState', checkpoint).lower).toBeGreaterThan(0);
    }
    // Before the swap (its probe precedes the exchange) the swap arms follow their own history.
    expect(series('notebook-follower', 'swapFollowsState', 1).upper).toBeLessThan(0);
  });

  it('hidden state: divergence survives erasure, and swapped instances follow their history', () => {
    const hiddenExcess = (1 - 2 * DIVERGENCE_SYSTEMS['hidden-state'].probeFlip) ** 2;
    for (const checkpoint of LATER) {
      expect(series('hidden-state', 'eraseExcess', checkpoint).lower).toBeGreaterThan(0.3);
      expect(contains(series('hidden-state', 'excess', checkpoint), hiddenExcess)).toBe(true);
      expect(series('hidden-state', 'swapFollowsState', checkpoint).upper).toBeLessThan(0);
    }
  });

  it('reports every dynamic per system, null only with a reason', () => {
    for (const system of analysis.systems) {
      expect(system.dynamics.map((d) => d.name)).toEqual([
        'experienceDivergence',
        'continuity',
        'drift',
        'stability',
        'recovery',
        'plasticity',
        'hysteresis',
        'memoryAccumulation',
      ]);
      for (const dynamic of system.dynamics) {
        expect(dynamic.definition.length).toBeGreaterThan(0);
        if (dynamic.value.estimate === null) expect(dynamic.value.reason).not.toBeNull();
      }
    }
    const follow = analysis.systems.find((s) => s.systemId === 'notebook-follower');
    const value = (name: string) => follow?.dynamics.find((d) => d.name === name)?.value;
    // The follower's notebook holds the washout evidence: usable information accumulates.
    expect(value('memoryAccumulation')?.lower).toBeGreaterThan(0);
    // The latest-ingested evidence wins: A then B and B then A end on opposite answers.
    expect(value('hysteresis')?.lower).toBeGreaterThan(0.3);
    expect(value('plasticity')?.lower).toBeGreaterThan(0.3);
    expect(value('recovery')?.estimate).toBeGreaterThan(0.3);
    // Experience divergence is the excess at the manifest's primary checkpoint.
    expect(value('experienceDivergence')).toEqual(series('notebook-follower', 'excess', 6));
  });

  it('reads the primary checkpoint from the manifest, not from code', async () => {
    const { manifest, manifestSha256 } = await recomputeDivergence(runDir);
    const moved = {
      ...manifest,
      primaryCheckpoint: 3,
      analysis: { ...manifest.analysis, resamples: 50 },
    };
    const reanalyzed = analyzeDivergence(moved, manifestSha256, divergenceEntries(moved, calls));
    expect(reanalyzed.primaryCheckpoint).toBe(3);
    const follow = reanalyzed.systems.find((s) => s.systemId === 'notebook-follower');
    expect(follow?.dynamics.find((d) => d.name === 'experienceDivergence')?.value.estimate).toBe(
      series('notebook-follower', 'excess', 3).estimate,
    );
  });

  it('erasure and sham erasure send byte-identical operation requests', () => {
    const operation = (arm: string) =>
      calls.filter((call) => call.arm === arm && call.role === 'operation');
    const erase = operation('A.erase');
    const sham = operation('A.sham');
    expect(erase.length).toBe(WORLDS * 3);
    expect(erase.map((call) => call.requestSha256)).toEqual(sham.map((call) => call.requestSha256));
    expect(erase.every((call) => call.notebookAfter.bytes === 0)).toBe(true);
    expect(sham.every((call) => call.notebookAfter.bytes > 0)).toBe(true);
  });

  it("the swap arms continue from each other's notebook, recorded on the next call", () => {
    const worldSeeds = [...new Set(calls.map((call) => call.worldSeed))];
    for (const [system, worldSeed] of ['notebook-follower', 'hidden-state'].flatMap((system) =>
      worldSeeds.map((seed) => [system, seed] as const),
    )) {
      for (const [arm, partner] of [
        ['A.swap', 'B.swap'],
        ['B.swap', 'A.swap'],
      ]) {
        const of = (id: string) =>
          calls.filter(
            (call) => call.systemId === system && call.arm === id && call.worldSeed === worldSeed,
          );
        const partnerAfterExposure = of(partner as string)
          .filter((call) => call.checkpoint === 1)
          .at(-1);
        const firstAfterSwap = of(arm as string).find((call) => call.checkpoint === 2);
        expect(firstAfterSwap?.operations).toEqual(['swap']);
        expect(firstAfterSwap?.notesShownSha256).toBe(partnerAfterExposure?.notebookAfter.sha256);
        expect(partnerAfterExposure?.notebookAfter.sha256).not.toBe(
          of(arm as string)
            .filter((call) => call.checkpoint === 1)
            .at(-1)?.notebookAfter.sha256,
        );
      }
    }
  });

  it('chi verify recomputes the release byte for byte, and notices an edited reply', async () => {
    const release = divergencePaths(runDir).releaseDir;
    const recomputed = await recomputeDivergence(release);
    expect(await compareDivergenceRelease(release, recomputed)).toEqual([]);
    const log = join(release, 'attempts.jsonl');
    const lines = readFileSync(log, 'utf8').split('\n');
    const index = lines.findIndex(
      (line) =>
        line.includes('"phase":"after_response"') &&
        line.includes('"requestId":"notebook-follower.divergence.') &&
        line.includes('.c6.probe.'),
    );
    const edited = JSON.parse(lines[index] as string) as {
      result: { text: string | null };
    };
    const flipped = JSON.parse(edited.result.text ?? '[]') as { id: string; answer: string }[];
    lines[index] = JSON.stringify({
      ...edited,
      result: {
        ...edited.result,
        text: JSON.stringify(flipped.map((a) => ({ ...a, answer: 'unknown' }))),
      },
    });
    writeFileSync(log, lines.join('\n'));
    const tampered = await recomputeDivergence(release);
    const mismatches = await compareDivergenceRelease(release, tampered);
    expect(mismatches.map((m) => m.file)).toContain('divergence.json');
  });
});
