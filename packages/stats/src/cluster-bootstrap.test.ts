import { InvalidArgumentError } from '@chi/spec';
import fc from 'fast-check';
import { uniformFloat64 } from 'pure-rand/distribution/uniformFloat64';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import { mean, probit, standardDeviation } from 'simple-statistics';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { BootstrapEstimate, BootstrapEstimates } from './bootstrap-estimate.js';
import { clusterBootstrap } from './cluster-bootstrap.js';
import { meanOverClusters } from './cluster-means.js';
import { drawResampleIndices } from './resample-draws.js';

const meanOf = (sample: readonly number[]): number => meanOverClusters(sample, (x) => x);

function fieldOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    return InvalidArgumentError.isInstance(error) ? error.field : 'not a InvalidArgumentError';
  }
  return undefined;
}

describe('clusterBootstrap: hand-checkable cases', () => {
  it('two clusters, eight replicates (seed 7): the interval follows from the drawn multisets', () => {
    // drawResampleIndices({ clusterCount: 2, resamples: 8, seed: 7 }) draws the pairs
    // [1,1] [1,1] [1,1] [1,0] [1,0] [1,1] [1,1] [0,0]; with values [0, 1] the replicate means are
    // 1, 1, 1, 0.5, 0.5, 1, 1, 0 -> sorted 0, 0.5, 0.5, 1, 1, 1, 1, 1.
    // level 0.5: p = 0.25 -> h = 7 x 0.25 = 1.75 -> 0.5; p = 0.75 -> h = 5.25 -> 1.
    // level 0.8: p = 0.1 -> h = 0.7 -> 0 + 0.7 x 0.5 = 0.35; p = 0.9 -> h = 6.3 -> 1.
    const base = {
      clusters: [0, 1],
      statistic: meanOf,
      seed: 7,
      resamples: 8,
      method: 'percentile',
    } as const;
    const half = clusterBootstrap({ ...base, level: 0.5 });
    expect(half).toEqual({
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
    const eighty = clusterBootstrap({ ...base, level: 0.8 });
    expect(eighty.interval?.lower).toBeCloseTo(0.35, 12);
    expect(eighty.interval?.upper).toBe(1);
  });

  it('two clusters, 2000 replicates: the 95% interval is the whole range [0, 1]', () => {
    // Each replicate mean is 0, 0.5 or 1 with probabilities 1/4, 1/2, 1/4. Both tails hold far
    // more than 2.5% of replicates (about 500 each), so the 2.5% and 97.5% quantiles are 0 and 1
    // exactly, and the central 40% (p = 0.3 .. 0.7) lies inside the 0.5 block.
    const wide = clusterBootstrap({ clusters: [0, 1], statistic: meanOf, seed: 20260901 });
    expect(wide.estimate).toBe(0.5);
    expect(wide.interval).toEqual({ lower: 0, upper: 1 });
    expect(wide.resamples).toBe(2000);
    const narrow = clusterBootstrap({
      clusters: [0, 1],
      statistic: meanOf,
      seed: 20260901,
      level: 0.4,
      method: 'percentile',
    });
    expect(narrow.interval).toEqual({ lower: 0.5, upper: 0.5 });
  });

  it('identical clusters give a zero-width interval at their common value', () => {
    const result = clusterBootstrap({
      clusters: [0.625, 0.625, 0.625, 0.625],
      statistic: meanOf,
      seed: 3,
    });
    expect(result.estimate).toBe(0.625);
    expect(result.interval).toEqual({ lower: 0.625, upper: 0.625 });
  });

  it('null replicates are counted and the interval uses only the defined ones', () => {
    // seed 42, 3 clusters, 4 replicates draws [1,1,0] [1,0,1] [0,0,2] [1,2,2]. The statistic is
    // undefined when world 0 is absent (say, a contrast against it): replicate 3 only.
    // Defined means of values [10, 20, 40]: 50/3, 50/3, 20 -> sorted 16.67, 16.67, 20.
    // level 0.5: h = 2 x 0.25 = 0.5 -> 50/3; h = 1.5 -> 50/3 + 0.5 x (20 - 50/3) = 55/3.
    const worlds = [
      { id: 0, value: 10 },
      { id: 1, value: 20 },
      { id: 2, value: 40 },
    ];
    const result = clusterBootstrap({
      clusters: worlds,
      seed: 42,
      resamples: 4,
      level: 0.5,
      method: 'percentile',
      statistic: (sample) => ({
        contrast: sample.some((w) => w.id === 0) ? meanOverClusters(sample, (w) => w.value) : null,
        always: sample.length,
      }),
    });
    expect(result.contrast.estimate).toBeCloseTo(70 / 3, 12);
    expect(result.contrast.definedReplicates).toBe(3);
    expect(result.contrast.undefinedReplicates).toBe(1);
    expect(result.contrast.interval?.lower).toBeCloseTo(50 / 3, 12);
    expect(result.contrast.interval?.upper).toBeCloseTo(55 / 3, 12);
    expect(result.always.undefinedReplicates).toBe(0);
    expect(result.always.interval).toEqual({ lower: 3, upper: 3 });
    expect(Object.keys(result)).toEqual(['contrast', 'always']);
  });

  it('reports an undefined point estimate as null but still summarises defined replicates', () => {
    // Undefined on the original sample (contains world 0), defined when world 0 is not drawn.
    const result = clusterBootstrap({
      clusters: [0, 1, 2],
      seed: 42,
      resamples: 4,
      statistic: (sample) => (sample.includes(0) ? null : meanOf(sample)),
    });
    expect(result.estimate).toBeNull();
    expect(result.definedReplicates).toBe(1); // only [1,2,2]
    expect(result.interval).toEqual({ lower: 5 / 3, upper: 5 / 3 });
  });

  it('omits the interval when every replicate is undefined', () => {
    const result = clusterBootstrap({
      clusters: [1, 2],
      seed: 1,
      resamples: 5,
      statistic: () => null,
    });
    expect(result).toMatchObject({
      estimate: null,
      interval: null,
      intervalOmittedReason: 'no_defined_replicates',
      definedReplicates: 0,
      undefinedReplicates: 5,
    });
  });

  it('with one cluster, reports the estimate but no interval, without resampling', () => {
    let calls = 0;
    const result = clusterBootstrap({
      clusters: [0.75],
      seed: 5,
      statistic: (sample) => {
        calls++;
        return { q: meanOf(sample) };
      },
    });
    expect(calls).toBe(1);
    expect(result.q).toEqual({
      estimate: 0.75,
      level: 0.95,
      quantile: 'linear',
      method: 'expanded_percentile',
      resamples: 0,
      definedReplicates: 0,
      undefinedReplicates: 0,
      clusters: 1,
      seed: 5,
      interval: null,
      intervalOmittedReason: 'fewer_than_two_clusters',
    });
  });

  it('hands the statistic the original sample, then each multiset in draw order', () => {
    const seen: number[][] = [];
    clusterBootstrap({
      clusters: [0, 1, 2],
      seed: 42,
      resamples: 4,
      statistic: (sample) => {
        seen.push([...sample]);
        return 0;
      },
    });
    expect(seen).toEqual([
      [0, 1, 2],
      [1, 1, 0],
      [1, 0, 1],
      [0, 0, 2],
      [1, 2, 2],
    ]);
  });

  it('uses inverted_cdf where asked, so a grid statistic never reports an untested load', () => {
    // EIMC-like: 64 if the mean passes 0.5, else 32. Linear interpolation could land between.
    const grid = (sample: readonly number[]) => (meanOf(sample) >= 0.5 ? 64 : 32);
    const result = clusterBootstrap({
      clusters: [0, 0, 1, 1],
      seed: 8,
      statistic: (sample) => ({ eimc: grid(sample), mean: meanOf(sample) }),
      quantile: { eimc: 'inverted_cdf' },
    });
    expect(result.eimc.quantile).toBe('inverted_cdf');
    expect(result.mean.quantile).toBe('linear');
    expect([32, 64]).toContain(result.eimc.interval?.lower);
    expect([32, 64]).toContain(result.eimc.interval?.upper);
  });
});

describe('clusterBootstrap: invariants', () => {
  const sample = fc.array(fc.double({ min: -100, max: 100, noNaN: true }), {
    minLength: 2,
    maxLength: 12,
  });
  const seed = fc.integer({ min: 0, max: 0xffff_ffff });

  it('is deterministic: same data and seed, the same result serialised byte for byte', () => {
    fc.assert(
      fc.property(sample, seed, (values, s) => {
        const once = clusterBootstrap({
          clusters: values,
          statistic: meanOf,
          seed: s,
          resamples: 50,
        });
        const twice = clusterBootstrap({
          clusters: values,
          statistic: meanOf,
          seed: s,
          resamples: 50,
        });
        expect(JSON.stringify(twice)).toBe(JSON.stringify(once));
      }),
      { numRuns: 50 },
    );
  });

  it('for a mean: lower <= upper and the interval lies within [min, max] of the clusters', () => {
    fc.assert(
      fc.property(
        sample,
        seed,
        fc.double({ min: 0.01, max: 0.99, noNaN: true }),
        (values, s, level) => {
          const { interval } = clusterBootstrap({
            clusters: values,
            statistic: meanOf,
            seed: s,
            resamples: 40,
            level,
          });
          expect(interval).not.toBeNull();
          if (interval === null) return;
          expect(interval.lower).toBeLessThanOrEqual(interval.upper);
          // A floating-point mean of a multiset can land an ulp outside its values
          // ((x + x + x) / 3 need not equal x), so the bounds get a relative rounding allowance.
          const min = Math.min(...values);
          const max = Math.max(...values);
          const ulps = (x: number) => Math.abs(x) * 4 * Number.EPSILON;
          expect(interval.lower).toBeGreaterThanOrEqual(min - ulps(min));
          expect(interval.upper).toBeLessThanOrEqual(max + ulps(max));
        },
      ),
      // the counterexample CI found: three equal-ish tiny clusters whose replicate mean rounds up
      { numRuns: 60, examples: [[[0, 0, 7.622987040161851e-250], 2731585238, 0.8974358974358972]] },
    );
  });

  it('counts as undefined exactly the replicates in which the statistic returned null', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 8 }),
        fc.integer({ min: 1, max: 60 }),
        seed,
        (n, b, s) => {
          const clusters = Array.from({ length: n }, (_, i) => i);
          const result = clusterBootstrap({
            clusters,
            seed: s,
            resamples: b,
            statistic: (drawn) => (drawn.includes(0) ? 1 : null),
          });
          const draws = drawResampleIndices({ clusterCount: n, resamples: b, seed: s });
          let missingWorldZero = 0;
          for (let r = 0; r < b; r++) {
            if (!draws.subarray(r * n, (r + 1) * n).includes(0)) missingWorldZero++;
          }
          expect(result.undefinedReplicates).toBe(missingWorldZero);
          expect(result.definedReplicates + result.undefinedReplicates).toBe(b);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('a constant statistic has a zero-width interval at the constant', () => {
    fc.assert(
      fc.property(sample, seed, fc.double({ min: -1e3, max: 1e3, noNaN: true }), (values, s, c) => {
        const { estimate, interval } = clusterBootstrap({
          clusters: values,
          statistic: () => c,
          seed: s,
          resamples: 20,
        });
        expect(estimate).toBe(c);
        expect(interval).toEqual({ lower: c, upper: c });
      }),
      { numRuns: 30 },
    );
  });
});

describe('clusterBootstrap: agrees with normal theory for a mean of many clusters', () => {
  it('percentile endpoints are within Monte Carlo tolerance of mean -/+ z * sd / sqrt(n)', () => {
    const rng = xoroshiro128plus(2026);
    // 400 clusters, each the sum of 3 uniforms (smooth, mildly non-normal per cluster).
    const values = Array.from(
      { length: 400 },
      () => uniformFloat64(rng) + uniformFloat64(rng) + uniformFloat64(rng),
    );
    const result = clusterBootstrap({ clusters: values, statistic: meanOf, seed: 99 });
    // The bootstrap distribution of a mean has sd = population sd / sqrt(n) (plug-in, divisor n).
    const standardError = standardDeviation(values) / Math.sqrt(values.length);
    const z = probit(0.975);
    const lower = mean(values) - z * standardError;
    const upper = mean(values) + z * standardError;
    // Monte Carlo sd of a 2.5% quantile from 2000 replicates is about
    // sqrt(0.025 x 0.975 / 2000) / phi(1.96) = 0.06 standard errors: allow 0.25 (about 4 sd).
    expect(result.interval).not.toBeNull();
    expect(Math.abs((result.interval?.lower ?? 0) - lower)).toBeLessThan(0.25 * standardError);
    expect(Math.abs((result.interval?.upper ?? 0) - upper)).toBeLessThan(0.25 * standardError);
  });
});

describe('clusterBootstrap: input errors name the field', () => {
  const ok = { clusters: [1, 2, 3], statistic: meanOf, seed: 1 };

  it('rejects bad options', () => {
    expect(fieldOf(() => clusterBootstrap({ ...ok, clusters: [] }))).toBe('clusters');
    expect(fieldOf(() => clusterBootstrap({ ...ok, resamples: 0 }))).toBe('resamples');
    expect(fieldOf(() => clusterBootstrap({ ...ok, level: 1.2 }))).toBe('level');
    expect(fieldOf(() => clusterBootstrap({ ...ok, level: 0 }))).toBe('level');
    expect(fieldOf(() => clusterBootstrap({ ...ok, seed: 1.5 }))).toBe('seed');
    expect(fieldOf(() => clusterBootstrap({ ...ok, seed: -1 }))).toBe('seed');
    const notAFunction = 'mean' as unknown as typeof meanOf;
    expect(fieldOf(() => clusterBootstrap({ ...ok, statistic: notAFunction }))).toBe('statistic');
    expect(() => clusterBootstrap({ ...ok, clusters: [] })).toThrow(
      'clusters: expected at least one cluster (world), found an empty list',
    );
  });

  it('rejects NaN and infinities from the statistic, pointing at null for undefined values', () => {
    expect(() => clusterBootstrap({ ...ok, statistic: () => Number.NaN })).toThrow(
      'statistic: the statistic returned NaN on the original sample; expected a finite number, or null for an undefined value',
    );
    let call = 0;
    expect(() =>
      clusterBootstrap({
        ...ok,
        statistic: () => ({ q: call++ === 3 ? Number.POSITIVE_INFINITY : 1 }),
      }),
    ).toThrow('statistic "q" returned Infinity on replicate 2');
  });

  it('rejects a statistic that changes shape or names between calls', () => {
    let call = 0;
    // The types already forbid this; the runtime check covers untyped callers.
    const switching = (() => (call++ === 0 ? { a: 1 } : { b: 1 })) as () => { a: number };
    expect(() => clusterBootstrap({ ...ok, statistic: switching })).toThrow(
      'returned names [b] on replicate 0 but [a] on the original sample',
    );
    let second = 0;
    const scalarThenRecord = (() => (second++ === 0 ? 1 : { a: 1 })) as () => number;
    expect(fieldOf(() => clusterBootstrap({ ...ok, statistic: scalarThenRecord }))).toBe(
      'statistic',
    );
    const empty = (() => ({})) as () => number;
    expect(fieldOf(() => clusterBootstrap({ ...ok, statistic: empty }))).toBe('statistic');
    const text = (() => 'x') as unknown as () => number;
    expect(fieldOf(() => clusterBootstrap({ ...ok, statistic: text }))).toBe('statistic');
  });

  it('rejects quantile choices that do not fit the statistic', () => {
    const byName = { value: 'linear' } as unknown as 'linear';
    expect(fieldOf(() => clusterBootstrap({ ...ok, quantile: byName }))).toBe('quantile');
    expect(
      fieldOf(() =>
        clusterBootstrap({
          ...ok,
          statistic: (s) => ({ q: meanOf(s) }),
          quantile: { qq: 'linear' } as unknown as { q: 'linear' },
        }),
      ),
    ).toBe('quantile.qq');
  });
});

describe('clusterBootstrap: types', () => {
  it('returns one estimate for a scalar statistic and a record for named statistics', () => {
    const scalar = clusterBootstrap({ clusters: [1, 2], seed: 1, resamples: 2, statistic: meanOf });
    expectTypeOf(scalar).toEqualTypeOf<BootstrapEstimate>();
    const named = clusterBootstrap({
      clusters: [1, 2],
      seed: 1,
      resamples: 2,
      statistic: (s) => ({ qualityScore: meanOf(s), eimc: s.length > 1 ? 64 : null }),
    });
    expectTypeOf(named).toEqualTypeOf<BootstrapEstimates<'qualityScore' | 'eimc'>>();
    expect(named.eimc.estimate).toBe(64);
  });
});
