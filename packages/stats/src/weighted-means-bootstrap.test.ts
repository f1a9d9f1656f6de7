import { InvalidArgumentError } from '@chi/spec';
import fc from 'fast-check';
import { uniformFloat64 } from 'pure-rand/distribution/uniformFloat64';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import { mean, probit, standardDeviation } from 'simple-statistics';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { BootstrapEstimates } from './bootstrap-estimate.js';
import { clusterBootstrap } from './cluster-bootstrap.js';
import { meanOverClusters, meanVectorOverClusters, packClusterVectors } from './cluster-means.js';
import { weightedMeansBootstrap } from './weighted-means-bootstrap.js';

function fieldOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    return InvalidArgumentError.isInstance(error) ? error.field : 'not a InvalidArgumentError';
  }
  return undefined;
}

const firstMean = (means: Float64Array, out: Float64Array): void => {
  out[0] = means[0] as number;
};

function oneColumn(values: readonly number[]) {
  return packClusterVectors(values.map((value) => [value]));
}

describe('weightedMeansBootstrap: hand-checkable cases', () => {
  it('two clusters, eight replicates (seed 7): same multisets, same interval as clusterBootstrap', () => {
    // Multisets [1,1] x3, [1,0] x2, [1,1] x2, [0,0] -> means 1,1,1,.5,.5,1,1,0 (see the
    // clusterBootstrap test): level 0.5 -> [0.5, 1].
    const result = weightedMeansBootstrap({
      ...oneColumn([0, 1]),
      names: ['mean'],
      statistic: firstMean,
      seed: 7,
      resamples: 8,
      level: 0.5,
      method: 'percentile',
    });
    expect(result.mean).toEqual({
      estimate: 0.5,
      level: 0.5,
      quantile: 'linear',
      method: 'percentile',
      resamples: 8,
      definedReplicates: 8,
      undefinedReplicates: 0,
      clusters: 2,
      seed: 7,
      interval: { lower: 0.5, upper: 1 },
      intervalOmittedReason: null,
    });
  });

  it('the point estimate is the plain column mean (every count 1)', () => {
    const packed = packClusterVectors([
      [1, 0.5],
      [0.5, 0.25],
      [0, 0],
    ]);
    const result = weightedMeansBootstrap({
      ...packed,
      names: ['a', 'b'],
      statistic: (means, out) => {
        out[0] = means[0] as number;
        out[1] = means[1] as number;
      },
      seed: 1,
      resamples: 10,
    });
    expect(result.a.estimate).toBe(0.5);
    expect(result.b.estimate).toBe(0.25);
  });

  it('identical clusters give a zero-width interval', () => {
    const result = weightedMeansBootstrap({
      ...oneColumn([0.375, 0.375, 0.375]),
      names: ['mean'],
      statistic: firstMean,
      seed: 4,
    });
    expect(result.mean.interval).toEqual({ lower: 0.375, upper: 0.375 });
  });

  it('NaN marks an undefined replicate; an output left unwritten is undefined too', () => {
    // seed 42, 3 clusters, 4 replicates: counts [1,2,0] [1,2,0] [2,0,1] [0,1,2] (see
    // drawResampleIndices). With values [10, 20, 40] the means are 50/3, 50/3, 20, 100/3;
    // "undefined above 30" leaves 50/3, 50/3, 20 -> level 0.5 gives [50/3, 55/3].
    const result = weightedMeansBootstrap({
      ...oneColumn([10, 20, 40]),
      names: ['capped', 'neverWritten'],
      statistic: (means, out) => {
        const m = means[0] as number;
        out[0] = m > 30 ? Number.NaN : m;
      },
      seed: 42,
      resamples: 4,
      level: 0.5,
      method: 'percentile',
    });
    expect(result.capped.undefinedReplicates).toBe(1);
    expect(result.capped.interval?.lower).toBeCloseTo(50 / 3, 12);
    expect(result.capped.interval?.upper).toBeCloseTo(55 / 3, 12);
    expect(result.neverWritten).toMatchObject({
      estimate: null,
      interval: null,
      intervalOmittedReason: 'no_defined_replicates',
      undefinedReplicates: 4,
    });
  });

  it('with one cluster, reports the estimate and no interval', () => {
    const result = weightedMeansBootstrap({
      ...oneColumn([0.5]),
      names: ['mean'],
      statistic: firstMean,
      seed: 1,
    });
    expect(result.mean).toMatchObject({
      estimate: 0.5,
      resamples: 0,
      interval: null,
      intervalOmittedReason: 'fewer_than_two_clusters',
    });
  });

  it('tells the statistic which sample it computes: -1 for the original, then 0..resamples-1', () => {
    const seen: number[] = [];
    weightedMeansBootstrap({
      ...oneColumn([0, 1, 2]),
      names: ['mean'],
      statistic: (means, out, replicate) => {
        seen.push(replicate);
        out[0] = means[0] as number;
      },
      seed: 3,
      resamples: 4,
    });
    expect(seen).toEqual([-1, 0, 1, 2, 3]);
    const single: number[] = [];
    weightedMeansBootstrap({
      ...oneColumn([0.5]),
      names: ['mean'],
      statistic: (means, out, replicate) => {
        single.push(replicate);
        out[0] = means[0] as number;
      },
      seed: 3,
      resamples: 4,
    });
    expect(single).toEqual([-1]);
  });

  it('applies quantile definitions by name', () => {
    const result = weightedMeansBootstrap({
      ...oneColumn([0, 0, 1, 1]),
      names: ['grid', 'mean'],
      statistic: (means, out) => {
        out[0] = (means[0] as number) >= 0.5 ? 64 : 32;
        out[1] = means[0] as number;
      },
      seed: 8,
      quantile: { grid: 'inverted_cdf' },
    });
    expect(result.grid.quantile).toBe('inverted_cdf');
    expect([32, 64]).toContain(result.grid.interval?.lower);
    expect([32, 64]).toContain(result.grid.interval?.upper);
    expectTypeOf(result).toEqualTypeOf<BootstrapEstimates<'grid' | 'mean'>>();
  });
});

describe('weightedMeansBootstrap: same draws as clusterBootstrap', () => {
  it('draws identical multisets for any cluster count, resample count and seed', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 12 }),
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 0, max: 0xffff_ffff }),
        (n, resamples, seed) => {
          // One-hot rows: the weighted column means are count_i / n, so n * means = counts.
          const identity = packClusterVectors(
            Array.from({ length: n }, (_, i) =>
              Array.from({ length: n }, (_, j) => (i === j ? 1 : 0)),
            ),
          );
          const fastCounts: number[][] = [];
          weightedMeansBootstrap({
            ...identity,
            names: ['unused'],
            seed,
            resamples,
            statistic: (means) => {
              fastCounts.push(Array.from(means, (m) => Math.round(m * n)));
            },
          });
          const generalCounts: number[][] = [];
          clusterBootstrap({
            clusters: Array.from({ length: n }, (_, i) => i),
            seed,
            resamples,
            statistic: (sample) => {
              const counts = new Array<number>(n).fill(0);
              for (const i of sample) counts[i] = (counts[i] as number) + 1;
              generalCounts.push(counts);
              return 0;
            },
          });
          expect(fastCounts).toEqual(generalCounts); // includes the original sample first
        },
      ),
      { numRuns: 60 },
    );
  });

  it('gives the same intervals as clusterBootstrap up to summation order', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 3, maxLength: 3 }),
          {
            minLength: 2,
            maxLength: 10,
          },
        ),
        fc.integer({ min: 0, max: 0xffff_ffff }),
        (rows, seed) => {
          const geometric = (m: ArrayLike<number>) =>
            Math.cbrt((m[0] as number) * (m[1] as number) * (m[2] as number));
          const fast = weightedMeansBootstrap({
            ...packClusterVectors(rows),
            names: ['q'],
            seed,
            resamples: 60,
            statistic: (means, out) => {
              out[0] = geometric(means);
            },
          });
          const general = clusterBootstrap({
            clusters: rows,
            seed,
            resamples: 60,
            statistic: (sample) => geometric(meanVectorOverClusters(sample, (row) => row)),
          });
          const close = (a: number | undefined, b: number | undefined) =>
            expect(Math.abs((a ?? Number.NaN) - (b ?? Number.NaN))).toBeLessThanOrEqual(1e-12);
          close(fast.q.estimate ?? undefined, general.estimate ?? undefined);
          close(fast.q.interval?.lower, general.interval?.lower);
          close(fast.q.interval?.upper, general.interval?.upper);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('is deterministic byte for byte', () => {
    const packed = oneColumn([0.1, 0.7, 0.3, 0.9, 0.5]);
    const run = () =>
      JSON.stringify(
        weightedMeansBootstrap({ ...packed, names: ['m'], statistic: firstMean, seed: 77 }),
      );
    expect(run()).toBe(run());
  });

  it('for a mean: lower <= upper, within [min, max] of the clusters', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: -50, max: 50, noNaN: true }), { minLength: 2, maxLength: 15 }),
        fc.integer({ min: 0, max: 0xffff_ffff }),
        (values, seed) => {
          const { interval } = weightedMeansBootstrap({
            ...oneColumn(values),
            names: ['m'],
            statistic: firstMean,
            seed,
            resamples: 40,
          }).m;
          expect(interval).not.toBeNull();
          if (interval === null) return;
          expect(interval.lower).toBeLessThanOrEqual(interval.upper);
          // Weighted sums can round a hair past the extremes; allow one part in 1e12.
          const slack = 1e-12 * Math.max(1, ...values.map(Math.abs));
          expect(interval.lower).toBeGreaterThanOrEqual(Math.min(...values) - slack);
          expect(interval.upper).toBeLessThanOrEqual(Math.max(...values) + slack);
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe('weightedMeansBootstrap: agrees with normal theory for a mean of many clusters', () => {
  it('percentile endpoints are within Monte Carlo tolerance of mean -/+ z * sd / sqrt(n)', () => {
    const rng = xoroshiro128plus(7);
    // 1000 clusters of a skewed per-cluster value (squared uniform): the mean is still near normal.
    const values = Array.from({ length: 1000 }, () => uniformFloat64(rng) ** 2);
    const { m } = weightedMeansBootstrap({
      ...oneColumn(values),
      names: ['m'],
      statistic: firstMean,
      seed: 31,
      resamples: 4000,
    });
    const standardError = standardDeviation(values) / Math.sqrt(values.length);
    const z = probit(0.975);
    // MC sd of a 2.5% quantile from 4000 replicates is about 0.043 standard errors; allow 0.2.
    expect(m.estimate).toBeCloseTo(mean(values), 12);
    expect(Math.abs((m.interval?.lower ?? 0) - (mean(values) - z * standardError))).toBeLessThan(
      0.2 * standardError,
    );
    expect(Math.abs((m.interval?.upper ?? 0) - (mean(values) + z * standardError))).toBeLessThan(
      0.2 * standardError,
    );
    // The interval is roughly centred on the estimate: a mean of 1000 values has little skew.
    const centre = ((m.interval?.lower ?? 0) + (m.interval?.upper ?? 0)) / 2;
    expect(Math.abs(centre - mean(values))).toBeLessThan(0.2 * standardError);
  });
});

describe('weightedMeansBootstrap: input errors name the field', () => {
  const ok = {
    data: Float64Array.from([0.1, 0.2, 0.3, 0.4]),
    clusters: 2,
    width: 2,
    names: ['a'] as const,
    statistic: firstMean,
    seed: 1,
  };

  it('rejects bad dimensions and data', () => {
    expect(fieldOf(() => weightedMeansBootstrap({ ...ok, clusters: 0 }))).toBe('clusters');
    expect(fieldOf(() => weightedMeansBootstrap({ ...ok, clusters: 1.5 }))).toBe('clusters');
    expect(fieldOf(() => weightedMeansBootstrap({ ...ok, width: 0 }))).toBe('width');
    expect(fieldOf(() => weightedMeansBootstrap({ ...ok, width: 3 }))).toBe('data');
    expect(() => weightedMeansBootstrap({ ...ok, width: 3 })).toThrow(
      'data: has length 4, expected clusters x width = 2 x 3 = 6',
    );
    const withNaN = Float64Array.from([0.1, 0.2, Number.NaN, 0.4]);
    expect(() => weightedMeansBootstrap({ ...ok, data: withNaN })).toThrow(
      'data[2]: expected a finite number (cluster 1, column 0), found NaN',
    );
    const plainArray = [0.1, 0.2, 0.3, 0.4] as unknown as Float64Array;
    expect(fieldOf(() => weightedMeansBootstrap({ ...ok, data: plainArray }))).toBe('data');
  });

  it('rejects bad names, statistic, resamples, level and seed', () => {
    expect(fieldOf(() => weightedMeansBootstrap({ ...ok, names: [] }))).toBe('names');
    expect(fieldOf(() => weightedMeansBootstrap({ ...ok, names: ['a', 'a'] }))).toBe('names[1]');
    const notAFunction = 1 as unknown as typeof firstMean;
    expect(fieldOf(() => weightedMeansBootstrap({ ...ok, statistic: notAFunction }))).toBe(
      'statistic',
    );
    expect(fieldOf(() => weightedMeansBootstrap({ ...ok, resamples: 0 }))).toBe('resamples');
    expect(fieldOf(() => weightedMeansBootstrap({ ...ok, level: 1 }))).toBe('level');
    expect(fieldOf(() => weightedMeansBootstrap({ ...ok, seed: 2 ** 32 }))).toBe('seed');
    const unknownName = { b: 'linear' } as unknown as { a: 'linear' };
    expect(fieldOf(() => weightedMeansBootstrap({ ...ok, quantile: unknownName }))).toBe(
      'quantile.b',
    );
  });

  it('rejects an infinite output, pointing at NaN for undefined values', () => {
    expect(() =>
      weightedMeansBootstrap({
        ...ok,
        statistic: (_means, out) => {
          out[0] = Number.POSITIVE_INFINITY;
        },
      }),
    ).toThrow(
      'statistic: wrote Infinity for "a" on the original sample; write a finite number, or NaN',
    );
  });
});

describe('meanOverClusters and the fast path describe the same estimand', () => {
  it('point estimates agree', () => {
    const values = [0.125, 0.5, 0.875, 1];
    const fast = weightedMeansBootstrap({
      ...oneColumn(values),
      names: ['m'],
      statistic: firstMean,
      seed: 1,
      resamples: 1,
    });
    expect(fast.m.estimate).toBe(meanOverClusters(values, (x) => x));
  });
});
