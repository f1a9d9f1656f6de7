import { describe, expect, it } from 'vitest';
import {
  analyzeDivergence,
  type DivergenceWorldValue,
  divergenceWorldValues,
} from '../divergence/analyze';
import { statelessEntries, statelessManifest } from '../divergence/stateless-trajectories';
import { type CellCoverage, type CoverageObservation, coverageByCell } from './coverage-table';
import { type CoverageMethod, divergenceObservations } from './divergence-coverage';

// The per-cell stateless criterion of issue 31's Done-when, as docs/protocol.md reads it ("The
// per-cell stateless criterion"): "the stateless system's plasticity, hysteresis, drift excess and
// every arm's excess contain 0 in at least 90 % of 40 seed sets, with mean estimate within 0.05
// of 0", judged per cell against the release's simultaneous (family-wise) band, the interval the
// release presents as the claim. Every stateless cell whose truth is 0 is judged: every excess
// series of every arm at every checkpoint and every dynamic whose truth is 0. Drawn with the
// stateless system's declared law (every decision a fair coin) for 40 sets of the default 8
// worlds, 1000 resamples; deterministic.
const SETS = 40;
const WORLDS = 8;

const drawn = new Map<number, { values: DivergenceWorldValue[]; seed: number }>();
/** One seed set's stateless world values (the declared law) and its analysis seed, drawn once. */
function seedSet(set: number): { values: DivergenceWorldValue[]; seed: number } {
  const kept = drawn.get(set);
  if (kept !== undefined) return kept;
  const manifest = statelessManifest(WORLDS);
  const worldSeeds = Array.from({ length: WORLDS }, (_, index) => 1000 * set + index + 1);
  const values = divergenceWorldValues(
    { ...manifest, worldSeeds },
    statelessEntries(manifest, worldSeeds, 104729 * set + 31),
  );
  const result = { values, seed: manifest.analysis.seed + set };
  drawn.set(set, result);
  return result;
}

function observations(
  method: CoverageMethod,
  shift: (value: DivergenceWorldValue) => DivergenceWorldValue = (value) => value,
): CoverageObservation[] {
  const manifest = statelessManifest(WORLDS);
  return Array.from({ length: SETS }, (_, set) => {
    const { values, seed } = seedSet(set);
    return divergenceObservations(values.map(shift), {
      checkpoints: manifest.checkpoints.map(({ checkpoint }) => checkpoint),
      seed,
      resamples: 1000,
      level: manifest.analysis.level,
      methods: [method],
    });
  }).flat();
}

/** The criterion's cells (truth 0) that fail it: coverage below 0.9 or |mean| above 0.05. */
function criterionFailures(cells: readonly CellCoverage[]): string[] {
  const judged = cells.filter((cell) => cell.truth === 0 && cell.cell !== 'stateless recovery');
  expect(judged.length).toBe(5 * 7 + 6);
  return judged
    .filter(
      (cell) =>
        cell.noInterval > 0 ||
        (cell.coverage ?? 0) < 0.9 ||
        Math.abs(cell.meanError ?? Number.POSITIVE_INFINITY) > 0.05,
    )
    .map((cell) => `${cell.cell}: ${cell.coverage} ${cell.meanError?.toFixed(4)}`);
}

describe(`the per-cell stateless criterion over ${SETS} seed sets of ${WORLDS} worlds`, () => {
  it("the harness's simultaneous band is the release's band of the cell's family", () => {
    const manifest = {
      ...statelessManifest(WORLDS),
      analysis: { ...statelessManifest(WORLDS).analysis, resamples: 1000 },
    };
    const worldSeeds = manifest.worldSeeds;
    const entries = statelessEntries(manifest, worldSeeds, 31);
    const release = analyzeDivergence(manifest, 'sha', entries).systems[0];
    const harness = divergenceObservations(divergenceWorldValues(manifest, entries), {
      checkpoints: manifest.checkpoints.map(({ checkpoint }) => checkpoint),
      seed: manifest.analysis.seed,
      resamples: 1000,
      level: manifest.analysis.level,
      methods: ['simultaneous'],
    });
    const band = (cell: string) => {
      const found = harness.find((o) => o.cell === `stateless ${cell}`);
      return [found?.lower?.toFixed(6), found?.upper?.toFixed(6)];
    };
    const excess3 = release?.trajectory[3]?.series.excess;
    expect(band('excess@3')).toEqual([
      excess3?.simultaneousLower?.toFixed(6),
      excess3?.simultaneousUpper?.toFixed(6),
    ]);
    const plasticity = release?.dynamics.find((d) => d.name === 'plasticity')?.value;
    expect(band('plasticity')).toEqual([
      plasticity?.simultaneousLower?.toFixed(6),
      plasticity?.simultaneousUpper?.toFixed(6),
    ]);
  });

  it('holds for every cell with the simultaneous band, on the declared law', () => {
    expect(criterionFailures(coverageByCell(observations('simultaneous')))).toEqual([]);
  });

  it('fails for an estimator that is not centred under the null (every excess biased by +0.1)', () => {
    const biased = (value: DivergenceWorldValue) =>
      value.value === null ? value : { ...value, value: value.value + 0.1 };
    const cells = coverageByCell(observations('simultaneous', biased));
    // Every judged cell's mean is 0.1 off (measured: 9 of the 41 bands also hold 0 in fewer than
    // 90 % of the sets, down to none).
    expect(criterionFailures(cells).length).toBe(5 * 7 + 6);
    const lowBands = cells.filter((cell) => cell.truth === 0 && (cell.coverage ?? 0) < 0.9);
    expect(lowBands.length).toBeGreaterThan(0);
  });

  it('the pointwise studentized interval misses it in single cells by chance (why the band is judged)', () => {
    // Measured: 6 of 41 cells below 0.9 (lowest 0.825) while the pooled studentized coverage is
    // 0.945; at true 0.945 a cell shows 5+ misses of 40 with probability 0.067, and the cells of a
    // seed set are correlated.
    const failures = criterionFailures(coverageByCell(observations('studentized')));
    expect(failures.length).toBeGreaterThan(0);
  });
});
