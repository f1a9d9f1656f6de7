import { describe, expect, it } from 'vitest';
import { divergenceWorldValues } from '../divergence/analyze';
import { statelessEntries, statelessManifest } from '../divergence/stateless-trajectories';
import {
  type CoverageObservation,
  coverageByCell,
  coverageByGroup,
  coverageShortfall,
} from './coverage-table';
import { type CoverageMethod, divergenceObservations } from './divergence-coverage';

// Coverage against known truth at a small K, in seconds (docs/coverage.md): the stateless
// system's trajectories drawn with its declared law (every decision a fair coin) for K = 40 sets
// of the default 8 worlds, every known-truth cell of the release (every series of every arm at
// every checkpoint, every dynamic) read by the harness's code with 1000 resamples. Its truths
// are 0 for every excess and 0.5 for the raw distances: a quantity that reads noise as history
// fails here. Deterministic (fixed coins, the manifest's analysis seed).
const SETS = 40;
const WORLDS = 8;
const METHODS: readonly CoverageMethod[] = ['percentile', 'expanded_percentile', 'studentized'];

function observations(): CoverageObservation[] {
  const manifest = statelessManifest(WORLDS);
  return Array.from({ length: SETS }, (_, set) => {
    const worldSeeds = Array.from({ length: WORLDS }, (_, index) => 1000 * set + index + 1);
    const values = divergenceWorldValues(
      { ...manifest, worldSeeds },
      statelessEntries(manifest, worldSeeds, 104729 * set + 31),
    );
    return divergenceObservations(values, {
      checkpoints: manifest.checkpoints.map(({ checkpoint }) => checkpoint),
      seed: manifest.analysis.seed + set,
      resamples: 1000,
      level: manifest.analysis.level,
      methods: METHODS,
    });
  }).flat();
}

describe(`stateless system: interval coverage over ${SETS} seed sets of ${WORLDS} worlds`, () => {
  const cells = coverageByCell(observations());
  const groups = coverageByGroup(cells);
  const of = (method: CoverageMethod) => cells.filter((cell) => cell.method === method);

  it('every excess of every arm and every dynamic: mean estimate within 0.05 of its truth', () => {
    // Recovery is a ratio (truth -0.144) defined in about a third of the worlds; its mean over
    // 40 sets is read as a count in known-dynamics.test.ts and stays out of this tolerance.
    const far = of('studentized').filter(
      (cell) => cell.cell !== 'stateless recovery' && Math.abs(cell.meanError ?? 1) > 0.05,
    );
    expect(far.map((cell) => `${cell.cell} ${cell.meanError}`)).toEqual([]);
    expect(of('studentized').length).toBe(7 * 7 + 16);
  });

  it('pooled coverage of the studentized and expanded intervals holds 0.92; the old percentile one fails', () => {
    // Measured: pooled series / dynamics 0.906 / 0.895 (percentile), 0.944 / 0.936 (expanded),
    // 0.947 / 0.931 (studentized).
    const pooled = (method: CoverageMethod) =>
      groups.filter((group) => group.method === method).map((group) => group.coverage as number);
    for (const coverage of [...pooled('studentized'), ...pooled('expanded_percentile')])
      expect(coverage).toBeGreaterThanOrEqual(0.92);
    expect(pooled('percentile').every((coverage) => coverage < 0.92)).toBe(true);
  });

  it('meets the acceptance rule of docs/protocol.md with the studentized interval; the percentile fails it', () => {
    // Pooled >= 0.92 per group and no cell of 20+ intervals at or below 0.8.
    const shortfalls = (method: CoverageMethod) =>
      groups
        .filter((group) => group.method === method)
        .map((group) => `${group.group}: ${coverageShortfall(group) ?? 'met'}`);
    expect(shortfalls('studentized')).toEqual([
      'divergence series (stateless): met',
      'divergence dynamics (stateless): met',
    ]);
    expect(shortfalls('percentile').every((line) => !line.endsWith(': met'))).toBe(true);
  });

  it('no cell of the studentized or expanded interval falls to 0.8; the percentile has twice the cells below 0.9', () => {
    // A cell whose true coverage is 0.95 is below 0.9 (5+ misses of 40) with probability 0.048,
    // so about 3 of 65 cells are by chance (more, the cells of a seed set being correlated); at
    // 0.8 (8+ misses) with probability 0.0003.
    const below = (method: CoverageMethod, level: number) =>
      of(method).filter((cell) => cell.coverage !== null && cell.coverage < level);
    expect(below('studentized', 0.8).map((cell) => cell.cell)).toEqual([]);
    expect(below('expanded_percentile', 0.8).map((cell) => cell.cell)).toEqual([]);
    console.log(
      below('studentized', 0.9).length,
      below('expanded_percentile', 0.9).length,
      below('percentile', 0.9).length,
    );
    expect(below('percentile', 0.9).length).toBeGreaterThanOrEqual(
      2 * below('studentized', 0.9).length,
    );
  });
});
