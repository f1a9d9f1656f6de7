import { uniformFloat64 } from 'pure-rand/distribution/uniformFloat64';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import { describe, expect, it } from 'vitest';
import { BOOTSTRAP_DEFAULTS, clusterBootstrap } from './cluster-bootstrap.js';
import { meanOverClusters } from './cluster-means.js';
import { intervalCoverage, type KnownTruthInterval } from './interval-coverage.js';
import { type IntervalMethod, intervalTailProbability } from './interval-method.js';
import { normalCdf, studentTQuantile } from './student-t.js';

/**
 * A synthetic known-truth study like a divergence cell: each world contributes the mean of
 * `TRIALS` independent 0/1 outcomes with probability `TRUTH`, so the world-mean's true value is
 * `TRUTH`. Seed set `s` draws its worlds from its own generator: deterministic, no timing.
 */
const TRUTH = 0.3;
const TRIALS = 8;

function worldsOf(seedSet: number, worlds: number): number[] {
  const rng = xoroshiro128plus(0x5eed0000 + seedSet);
  rng.jump();
  return Array.from({ length: worlds }, () => {
    let hits = 0;
    for (let trial = 0; trial < TRIALS; trial++) if (uniformFloat64(rng) < TRUTH) hits++;
    return hits / TRIALS;
  });
}

const meanOf = (sample: readonly number[]): number => meanOverClusters(sample, (value) => value);

function coverageOf(method: IntervalMethod, worlds: number, seedSets: number): number {
  const intervals: KnownTruthInterval[] = [];
  for (let seedSet = 0; seedSet < seedSets; seedSet++) {
    const estimate = clusterBootstrap({
      clusters: worldsOf(seedSet, worlds),
      statistic: meanOf,
      seed: 20260901 + seedSet,
      resamples: 1000,
      method,
    });
    intervals.push({
      family: 'mean',
      truth: TRUTH,
      lower: estimate.interval?.lower ?? null,
      upper: estimate.interval?.upper ?? null,
    });
  }
  return intervalCoverage(intervals).overall.coverage;
}

describe('interval coverage on a known truth at a few worlds (nominal 0.95)', () => {
  // 200 seed sets: the binomial standard error of a coverage near 0.95 is about 0.015. The figures
  // are deterministic (percentile 0.89 and 0.845, expanded 0.955 and 0.945 at 8 and 6 worlds).
  it('the plain percentile interval undercovers at 8 and at 6 worlds', () => {
    expect(coverageOf('percentile', 8, 200)).toBeLessThan(0.92);
    expect(coverageOf('percentile', 6, 200)).toBeLessThan(0.9);
  });

  it('the expanded percentile interval (the default) holds its level at 8 and at 6 worlds', () => {
    expect(coverageOf('expanded_percentile', 8, 200)).toBeGreaterThanOrEqual(0.93);
    expect(coverageOf('expanded_percentile', 6, 200)).toBeGreaterThanOrEqual(0.93);
  });

  it('the default method is the expanded percentile', () => {
    expect(BOOTSTRAP_DEFAULTS.method).toBe('expanded_percentile');
    const estimate = clusterBootstrap({ clusters: [0, 1, 1], statistic: meanOf, seed: 1 });
    expect(estimate.method).toBe('expanded_percentile');
  });
});

describe('intervalTailProbability', () => {
  it('is (1 - level) / 2 for the percentile method, and the t-expanded tail otherwise', () => {
    expect(intervalTailProbability('percentile', 0.95, 8)).toBeCloseTo(0.025, 15);
    // sqrt(8 / 7) x t(0.975, 7) = 1.0690 x 2.3646 = 2.5278; Phi(-2.5278) = 0.00574.
    expect(intervalTailProbability('expanded_percentile', 0.95, 8)).toBeCloseTo(0.00574, 4);
    // Large n: close to the percentile tail.
    expect(intervalTailProbability('expanded_percentile', 0.95, 10_000)).toBeCloseTo(0.025, 3);
  });

  it('the Student t quantile and the normal CDF match tables', () => {
    expect(studentTQuantile(0.975, 7)).toBeCloseTo(2.364624, 5);
    expect(studentTQuantile(0.975, 1)).toBeCloseTo(12.7062, 3);
    expect(studentTQuantile(0.025, 30)).toBeCloseTo(-2.042272, 5);
    expect(normalCdf(-1.959964)).toBeCloseTo(0.025, 6);
    expect(normalCdf(0)).toBeCloseTo(0.5, 7);
  });

  it('rejects an unknown method, naming the field', () => {
    expect(() =>
      clusterBootstrap({
        clusters: [0, 1],
        statistic: meanOf,
        seed: 1,
        method: 'bca' as IntervalMethod,
      }),
    ).toThrow(/method/);
  });
});

describe('intervalCoverage', () => {
  it('counts an interval as covering with its endpoints included, and a missing one as not', () => {
    const result = intervalCoverage([
      { family: 'a', truth: 0, lower: 0, upper: 0.5 },
      { family: 'a', truth: 0, lower: 0.1, upper: 0.5 },
      { family: 'b', truth: 1, lower: null, upper: null },
      { family: 'b', truth: 1, lower: 0.5, upper: 1 },
    ]);
    expect(result.families).toEqual([
      { family: 'a', intervals: 2, covered: 1, coverage: 0.5 },
      { family: 'b', intervals: 2, covered: 1, coverage: 0.5 },
    ]);
    expect(result.overall).toEqual({ family: 'all', intervals: 4, covered: 2, coverage: 0.5 });
  });

  it('rejects a true value that is not a finite number, naming it', () => {
    expect(() =>
      intervalCoverage([{ family: 'a', truth: Number.NaN, lower: 0, upper: 1 }]),
    ).toThrow(/intervals\[0\]\.truth/);
  });
});
