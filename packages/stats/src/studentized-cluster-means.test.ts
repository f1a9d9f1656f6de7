import { uniformFloat64 } from 'pure-rand/distribution/uniformFloat64';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import { describe, expect, it } from 'vitest';
import { clusterBootstrap } from './cluster-bootstrap.js';
import { meanOverClusters } from './cluster-means.js';
import { intervalCoverage, type KnownTruthInterval } from './interval-coverage.js';
import { studentizedClusterMeans } from './studentized-cluster-means.js';

/**
 * A known truth shaped like the hidden-state system's same-history distance (docs/coverage.md):
 * each of 8 worlds holds the mean of 8 probe coordinates, each flipped with 2p(1 - p) = 0.095, so
 * about 6 flips in a whole seed set (the percentile
 * interval misses 11 %): few, discrete and skewed.
 */
const TRUTH = 0.095;
const COORDINATES = 8;

function worldsOf(seedSet: number, worlds: number): number[] {
  const rng = xoroshiro128plus(0x5eed1000 + seedSet);
  rng.jump();
  return Array.from({ length: worlds }, () => {
    let flips = 0;
    for (let c = 0; c < COORDINATES; c++) if (uniformFloat64(rng) < TRUTH) flips++;
    return flips / COORDINATES;
  });
}

type Method = 'percentile' | 'expanded_percentile' | 'studentized';

function coverageOf(method: Method, seedSets: number): number {
  const intervals: KnownTruthInterval[] = [];
  for (let seedSet = 0; seedSet < seedSets; seedSet++) {
    const worlds = worldsOf(seedSet, 8);
    const seed = 20260901 + seedSet;
    const interval =
      method === 'studentized'
        ? studentizedClusterMeans({ values: { d: worlds }, seed, resamples: 1000 }).d.interval
        : clusterBootstrap({
            clusters: worlds,
            statistic: (sample) => meanOverClusters(sample, (value) => value),
            seed,
            resamples: 1000,
            method,
          }).interval;
    intervals.push({
      family: 'd',
      truth: TRUTH,
      lower: interval?.lower ?? null,
      upper: interval?.upper ?? null,
    });
  }
  return intervalCoverage(intervals).overall.coverage;
}

describe('studentizedClusterMeans', () => {
  // 400 seed sets: binomial SE of a coverage near 0.95 about 0.011. Deterministic figures.
  it('holds its level on few discrete flips at 8 worlds where the percentile intervals do not', () => {
    const percentile = coverageOf('percentile', 400);
    const expanded = coverageOf('expanded_percentile', 400);
    const studentized = coverageOf('studentized', 400);
    // Measured: percentile 0.89, expanded percentile 0.9375, studentized 0.9625.
    expect(percentile).toBeLessThan(0.9);
    expect(studentized).toBeGreaterThan(expanded);
    expect(studentized).toBeGreaterThanOrEqual(0.95);
  });

  it('is deterministic and its mean is the mean over defined clusters', () => {
    const values = { a: [0.25, 0.5, null, 1, 0.75, 0.5, 0.25, 0], b: [1, 1, 1, 1, 1, 1, 1, 1] };
    const first = studentizedClusterMeans({ values, seed: 7, resamples: 200 });
    expect(studentizedClusterMeans({ values, seed: 7, resamples: 200 })).toEqual(first);
    expect(first.a.estimate).toBeCloseTo(3.25 / 7, 12);
    expect(first.a.definedClusters).toBe(7);
    expect(first.a.method).toBe('studentized');
    expect(first.b.interval).toEqual({ lower: 1, upper: 1 });
    const { lower, upper } = first.a.interval ?? { lower: Number.NaN, upper: Number.NaN };
    expect(lower).toBeGreaterThanOrEqual(0);
    expect(upper).toBeLessThanOrEqual(1);
    expect(lower).toBeLessThan(first.a.estimate as number);
    expect(upper).toBeGreaterThan(first.a.estimate as number);
  });

  it('studentizes by the defined clusters: two defined worlds give an interval over their range', () => {
    const values = { r: [null, 0, null, null, 1, null, null, null] };
    const result = studentizedClusterMeans({ values, seed: 3, resamples: 500 }).r;
    expect(result.definedClusters).toBe(2);
    expect(result.interval).toEqual({ lower: 0, upper: 1 });
    const single = studentizedClusterMeans({ values: { r: [null, 0.5, null] }, seed: 3 }).r;
    expect(single).toMatchObject({ estimate: 0.5, interval: null, definedClusters: 1 });
  });

  it('rejects bad input with a typed error naming the field', () => {
    expect(() => studentizedClusterMeans({ values: { a: [1, 2], b: [1] }, seed: 1 })).toThrow(
      /values\.b/,
    );
    expect(() => studentizedClusterMeans({ values: { a: [1, Number.NaN] }, seed: 1 })).toThrow(
      /values\.a/,
    );
    expect(() => studentizedClusterMeans({ values: {}, seed: 1 })).toThrow(/values/);
    expect(() => studentizedClusterMeans({ values: { a: [1, 2] }, seed: -1 })).toThrow(/seed/);
  });
});
