import {
  type ChartData as ChartDataFile,
  chartDataFile,
  isHistoryObservation,
  isMemoryObservation,
  observationsOf,
  runChartData,
} from '@chi/analysis';
import { withExperimentScores } from '@chi/analysis/test';
/**
 * Pairing across cells when some blocks are incomplete (docs/protocol.md, "World sets"): every
 * estimand that combines cells uses the worlds complete in every cell it combines, for the
 * estimate and every bootstrap replicate alike. The run is a fixture run with holes in different
 * cells; the scores of one system are then set by hand so every expected value is worked out
 * below.
 */

import type { ChartData, HistoryObservation, MemoryObservation, RunScores } from '@chi/analysis';
import { systemLabel } from '@chi/analysis/internal';
import { buildFigures } from '@chi/figures';
import { eimcFromScores, scoreHistory } from '@chi/scoring';
import type { Decision, HistoryId } from '@chi/spec';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildFixtureRun } from '../__fixtures__/fixture-run';
import { tempDir } from '../__fixtures__/temp-dir';
import { type RunRecords, readRunFolder } from '../run-folder/run-folder';
import { analyzeRun } from './analyze-run';
import { scoreRun } from './score-run';

/** The analysis in the layout of `chart-data.json` (its experiment fields flat), as the tests read it. */
const analyzedFile = (...args: Parameters<typeof analyzeRun>): ChartDataFile =>
  chartDataFile(analyzeRun(...args));

/**
 * The forgetful system's notebook Q_M per world and load, set by hand (all six factors equal, so
 * a world's Q_M and every world-mean factor equal the mean of these numbers). `null` marks the
 * holes: blocks made incomplete by an infrastructure failure of the other system.
 *
 *           w11   w12   w13   w14
 *   N = 8   0.95  0.65  hole  0.95
 *   N = 16  0.85  hole  0.25  0.85
 *
 * Worlds complete at every load: {11, 14}. The curve: Q(8) = 0.95, Q(16) = 0.85, so EIMC is 16
 * (lower bound) at tau 0.7 and 0.8, and 8 (capacity) at tau 0.9.
 * Each load's own complete worlds would give Q(8) = (0.95 + 0.65 + 0.95) / 3 = 0.85 and
 * Q(16) = (0.85 + 0.25 + 0.85) / 3 = 0.65: EIMC 8, 8 and no passing load (the old, mixed curve).
 */
const FORGETFUL_Q: Record<number, Record<number, number>> = {
  8: { 11: 0.95, 12: 0.65, 13: 0.1, 14: 0.95 },
  16: { 11: 0.85, 12: 0.1, 13: 0.25, 14: 0.85 },
};

/**
 * The forgetful system's decisions at checkpoint 1 (four environments), set by hand. World 14's
 * history block is incomplete (an infrastructure failure at A checkpoint 3).
 *
 *   w11: A = AAAA, B = BBBB, A2 = AAAA   D(A,B) = 1     D(A,A2) = 0
 *   w12: A = AAAA, B = BBBA, A2 = ×AAA   D(A,B) = 0.75  D(A,A2) undefined (invalid decision)
 *   w13: A = AAAA, B = AAAA, A2 = BAAA   D(A,B) = 0     D(A,A2) = 0.25
 *
 * Worlds with A, B and A2 fully valid: {11, 13}. D(A,B) = (1 + 0) / 2 = 0.5,
 * D(A,A2) = (0 + 0.25) / 2 = 0.125, divergence = 0.375 = 0.5 - 0.125.
 * Averaging D(A,B) over its own worlds {11, 12, 13} would give 0.5833..., and 0.5833 - 0.125 is
 * not the divergence 0.375 (the old table).
 */
const CHECKPOINT_1: Record<number, Record<HistoryId, Decision[]>> = {
  11: { A: ['A', 'A', 'A', 'A'], B: ['B', 'B', 'B', 'B'], A2: ['A', 'A', 'A', 'A'] },
  12: { A: ['A', 'A', 'A', 'A'], B: ['B', 'B', 'B', 'A'], A2: ['invalid', 'A', 'A', 'A'] },
  13: { A: ['A', 'A', 'A', 'A'], B: ['A', 'A', 'A', 'A'], A2: ['B', 'A', 'A', 'A'] },
  14: { A: ['A', 'A', 'A', 'A'], B: ['B', 'B', 'B', 'B'], A2: ['A', 'A', 'A', 'A'] },
};

function withQuality(o: MemoryObservation, q: number): MemoryObservation {
  const factors = { r: q, t: q, s: q, u: q, i: q, oneMinusF: q };
  return { ...o, score: { ...o.score, factors, qualityScore: q } };
}

function withCheckpoint1(records: RunRecords, o: HistoryObservation): HistoryObservation {
  const world = records.historyWorlds.get(o.worldSeed);
  const hand = CHECKPOINT_1[o.worldSeed];
  if (world === undefined || hand === undefined) throw new Error(`no world ${o.worldSeed}`);
  const grid = (h: HistoryId) => o.decisions[h].map((row, k) => (k === 1 ? hand[h] : [...row]));
  const decisions = { A: grid('A'), B: grid('B'), A2: grid('A2') };
  return {
    ...o,
    decisions,
    score: scoreHistory({ validAnswers: world.validAnswers, decisions }),
  };
}

/** The fixture's scores with the forgetful system's memory and history values set by hand. */
function handScores(records: RunRecords, scores: RunScores): RunScores {
  const memory = observationsOf(scores, 'memory', isMemoryObservation).map((o) =>
    o.systemId === 'forgetful' && o.condition === 'notebook'
      ? withQuality(o, FORGETFUL_Q[o.load]?.[o.worldSeed] as number)
      : o,
  );
  const history = observationsOf(scores, 'history', isHistoryObservation).map((o) =>
    o.systemId === 'forgetful' ? withCheckpoint1(records, o) : o,
  );
  const withMemory = withExperimentScores(scores, 'memory', { observations: memory });
  return withExperimentScores(withMemory, 'history', { observations: history });
}

describe('pairing across cells with holes in different cells', () => {
  let dir: { path: string; remove: () => Promise<void> };
  let records: RunRecords;
  let scores: RunScores;
  let data: ChartData;
  beforeAll(async () => {
    dir = await tempDir('pairing');
    await buildFixtureRun(dir.path, {
      seeds: [11, 12, 13, 14],
      infrastructureFailures: [
        'keeper.memory.w13.n8.probe.b0',
        'keeper.memory.w12.n16.probe.b0',
        'keeper.history.w14.A.c3.probe',
      ],
      // a model failure: the block stays complete, but world 12 has no valid matched A pair
      timeouts: ['forgetful.behavior.w12.half2'],
    });
    records = await readRunFolder(dir.path);
    scores = handScores(records, scoreRun(records));
    data = analyzedFile(records, scores);
  });
  afterAll(async () => dir.remove());

  const point = (systemId: string, load: number) =>
    data.memory.find(
      (p) => p.systemId === systemId && p.condition === 'notebook' && p.load === load,
    );

  it('computes every point of a capacity curve on the worlds complete at every tested load', () => {
    for (const load of [8, 16]) {
      const p = point('forgetful', load);
      expect(p?.worldSeeds).toEqual([11, 14]);
      // worlds used 2 of 3 complete at this load (8: 11, 12, 14; 16: 11, 13, 14), 4 planned
      expect(p?.qualityScore).toMatchObject({ worlds: 2, completeWorlds: 3, plannedWorlds: 4 });
    }
    expect(point('forgetful', 8)?.qualityScore.estimate).toBeCloseTo(0.95, 12);
    expect(point('forgetful', 16)?.qualityScore.estimate).toBeCloseTo(0.85, 12);
    expect(point('forgetful', 8)?.factors.r.estimate).toBeCloseTo(0.95, 12);
    expect(point('forgetful', 16)?.meanWithinWorldQualityScore.estimate).toBeCloseTo(0.85, 12);
    // pooled stratum counts rest on the same two worlds: 2 r probes each
    expect(point('forgetful', 8)?.strata.r.denominator).toBe(4);
  });

  it('reads EIMC off that curve, in the estimate and in every replicate', () => {
    const forgetful = data.eimc.filter((e) => e.systemId === 'forgetful');
    expect(forgetful.map((e) => [e.tau, e.value, e.status, e.worlds])).toEqual([
      [0.7, 16, 'lower_bound', 2],
      [0.8, 16, 'lower_bound', 2],
      [0.9, 8, 'capacity', 2],
    ]);
    for (const e of forgetful) expect(e.worldSeeds).toEqual([11, 14]);
    // every replicate draws worlds 11 and 14 only through this curve: the Q_M at N=8 is 0.95
    // whenever defined, so no replicate has a load failing tau 0.9 at N = 8
    expect(forgetful.find((e) => e.tau === 0.9)?.noPassingReplicates).toBe(0);
  });

  it('computes divergence and both distances on one world set, so divergence = D(A,B) - D(A,A2)', () => {
    const d = data.historyDistances.find((x) => x.systemId === 'forgetful' && x.checkpoint === 1);
    expect(d?.worldSeeds).toEqual([11, 13]);
    expect(d?.distanceAB.estimate).toBe(0.5);
    expect(d?.distanceAA2.estimate).toBe(0.125);
    expect(d?.divergence.estimate).toBe(0.375);
    for (const e of [d?.distanceAB, d?.distanceAA2, d?.divergence])
      expect(e).toMatchObject({ worlds: 2, completeWorlds: 3, plannedWorlds: 4 });
    for (const x of data.historyDistances) {
      if (x.divergence.estimate === null) {
        expect([x.distanceAB.estimate, x.distanceAA2.estimate]).toEqual([null, null]);
        continue;
      }
      expect(x.divergence.estimate).toBe(
        (x.distanceAB.estimate as number) - (x.distanceAA2.estimate as number),
      );
    }
  });

  it('states worlds used, complete in the cell and planned for single-cell numbers', () => {
    // history block of world 14 is incomplete: accuracy uses the 3 complete worlds of 4 planned
    const accuracy = data.history.find(
      (h) => h.systemId === 'forgetful' && h.history === 'A2' && h.checkpoint === 1,
    )?.accuracy;
    expect(accuracy).toMatchObject({ worlds: 3, completeWorlds: 3, plannedWorlds: 4 });
    // frame-induced change: world 12's second half timed out, so no pair has both halves
    const frame = data.behavior.find(
      (b) => b.systemId === 'forgetful' && b.indicator === 'A-frame-change',
    )?.value;
    expect(frame).toMatchObject({ worlds: 3, completeWorlds: 4, plannedWorlds: 4 });
  });

  it('draws every curve on one world set and EIMC equals the EIMC read off the drawn curve', () => {
    const capacity = buildFigures(runChartData(data)).find((f) => f.id === 'memory-capacity');
    for (const e of data.eimc) {
      const rows = (capacity?.rows ?? []).filter(
        (r) =>
          r.system === systemLabel(data.run, e.systemId) &&
          r.quantity === 'Q_M of world-mean factors (primary)',
      );
      expect(rows.length).toBeGreaterThan(0);
      expect(new Set(rows.map((r) => r.worldSet))).toEqual(new Set([e.worldSeeds.join(' ')]));
      expect(rows.every((r) => r.worlds === e.worlds)).toBe(true);
      const drawn = eimcFromScores(
        rows.map((r) => r.load as number),
        rows.map((r) => r.estimate as number),
        e.tau,
      );
      expect(drawn).toBe(e.value);
    }
  });
});

/** The fixture's scores with the given blocks made incomplete (as an infrastructure failure would). */
function withIncomplete(scores: RunScores, blockIds: ReadonlySet<string>): RunScores {
  const keep = <T extends { readonly blockId: string; readonly blockComplete: boolean }>(
    o: T,
  ): T => (blockIds.has(o.blockId) ? { ...o, blockComplete: false } : o);
  let kept: RunScores = {
    ...scores,
    blocks: scores.blocks.map((b) =>
      blockIds.has(b.blockId) ? { ...b, status: 'incomplete' as const, reasons: ['removed'] } : b,
    ),
  };
  for (const id of ['memory', 'history', 'behavior'])
    kept = withExperimentScores(kept, id, {
      observations: (scores.modules.get(id)?.observations ?? []).map(keep),
    });
  return kept;
}

/** Every estimand's numbers (not its denominators of the cell), grouped by the blocks it can use. */
function estimandGroups(data: ChartData): Record<string, unknown> {
  const numbers = (e: { estimate: number | null; lower: number | null; upper: number | null }) => [
    e.estimate,
    e.lower,
    e.upper,
  ];
  const memory = (notebook: boolean) =>
    data.memory
      .filter((p) => (p.condition === 'notebook') === notebook)
      .map((p) => [
        p.systemId,
        p.condition,
        p.load,
        numbers(p.qualityScore),
        numbers(p.meanWithinWorldQualityScore),
        Object.values(p.factors).map(numbers),
        p.strata,
      ]);
  return {
    notebook: [
      memory(true),
      data.eimc.map((e) => [
        e.systemId,
        e.tau,
        e.value,
        e.status,
        e.lower,
        e.upper,
        e.noPassingReplicates,
      ]),
    ],
    controls: memory(false),
    history: [
      data.history.map((h) => [numbers(h.accuracy), numbers(h.unknownRate), h.invalid]),
      data.historyDistances.map((d) => [
        numbers(d.distanceAB),
        numbers(d.distanceAA2),
        numbers(d.divergence),
      ]),
      data.historyDynamics.map((d) => [numbers(d.continuity), numbers(d.correctionResponse)]),
    ],
    behavior: data.behavior.map((b) => [b.systemId, b.indicator, numbers(b.value), b.pooled]),
  };
}

describe('pairing properties', () => {
  const SEEDS = [11, 12, 13, 14];
  const LOADS = [8, 16];
  let dir: { path: string; remove: () => Promise<void> };
  let records: RunRecords;
  let scores: RunScores;
  let blockIds: string[];
  beforeAll(async () => {
    dir = await tempDir('pairing-property');
    await buildFixtureRun(dir.path, { seeds: SEEDS, loads: LOADS });
    const read = await readRunFolder(dir.path);
    // few replicates keep the property fast; the draws are still the real ones for this seed
    records = {
      ...read,
      manifest: { ...read.manifest, analysis: { ...read.manifest.analysis, resamples: 40 } },
    };
    scores = scoreRun(records);
    blockIds = scores.blocks.map((b) => b.blockId);
  });
  afterAll(async () => dir.remove());

  /**
   * Which group of estimands a block can feed, and whether it does: a memory block feeds the
   * notebook curves only when its world is complete at every load (the curve's world set); any
   * other block feeds its own experiment's estimands.
   */
  function groupUsing(block: string, holes: ReadonlySet<string>): string | null {
    const [experiment, world] = block.split('.') as [string, string];
    if (experiment === 'memory') {
      const completeEverywhere = LOADS.every((load) => !holes.has(`memory.${world}.n${load}`));
      return completeEverywhere ? 'notebook' : null;
    }
    return experiment;
  }

  it('removing a block changes no estimand that does not use it (estimates and intervals)', () => {
    fc.assert(
      fc.property(
        fc.subarray(blockIds, { maxLength: 8 }),
        fc.constantFrom(...blockIds),
        (holeList, removed) => {
          const holes = new Set(holeList);
          fc.pre(!holes.has(removed));
          const before = estimandGroups(analyzedFile(records, withIncomplete(scores, holes)));
          const after = estimandGroups(
            analyzedFile(records, withIncomplete(scores, new Set([...holes, removed]))),
          );
          const used = groupUsing(removed, holes);
          for (const group of Object.keys(before)) {
            if (group === used) continue;
            expect(
              after[group],
              `${group} after removing ${removed} with holes ${[...holes]}`,
            ).toEqual(before[group]);
          }
        },
      ),
      { numRuns: 40, seed: 20261201 },
    );
  });

  it('EIMC always equals the EIMC read off the curve displayed beside it, on one world set', () => {
    fc.assert(
      fc.property(fc.subarray(blockIds, { maxLength: 8 }), (holeList) => {
        const holes = new Set(holeList);
        const data = analyzedFile(records, withIncomplete(scores, holes));
        for (const e of data.eimc) {
          const curve = data.memory.filter(
            (p) => p.systemId === e.systemId && p.condition === 'notebook',
          );
          for (const p of curve) {
            expect(p.worldSeeds).toEqual(e.worldSeeds);
            expect(p.qualityScore.worlds).toBe(e.worlds);
          }
          expect(
            eimcFromScores(
              curve.map((p) => p.load),
              curve.map((p) => p.qualityScore.estimate as number),
              e.tau,
            ),
          ).toBe(e.value);
          // the curve's world set: the worlds whose memory blocks are complete at every load
          expect(e.worldSeeds).toEqual(
            SEEDS.filter((seed) => LOADS.every((load) => !holes.has(`memory.w${seed}.n${load}`))),
          );
        }
      }),
      { numRuns: 40, seed: 20261201 },
    );
  });
});
