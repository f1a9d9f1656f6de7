import { InvalidArgumentError } from '@chi/spec';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  assertStatisticNames,
  estimateWithoutResampling,
  type RunFacts,
  resolveQuantiles,
  runFacts,
  summarizeReplicates,
} from './bootstrap-estimate.js';
import { intervalTailProbability } from './interval-method.js';
import { percentileIntervalAtTail, type QuantileDefinition } from './quantile.js';

function fieldOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    return InvalidArgumentError.isInstance(error) ? error.field : 'not a InvalidArgumentError';
  }
  return undefined;
}

const run = { level: 0.5, method: 'percentile', clusters: 3, seed: 11 } as const;

describe('summarizeReplicates', () => {
  it('computes the interval over defined replicates only and counts the undefined ones', () => {
    // Defined: 1, 2, 3, 4, 5 -> type 7 at p = 0.25 and 0.75 gives 2 and 4.
    const replicates = Float64Array.from([5, Number.NaN, 1, 4, Number.NaN, 3, 2]);
    const summary = summarizeReplicates(3, replicates, 'linear', run);
    expect(summary).toEqual({
      estimate: 3,
      level: 0.5,
      quantile: 'linear',
      method: 'percentile',
      resamples: 7,
      definedReplicates: 5,
      undefinedReplicates: 2,
      clusters: 3,
      seed: 11,
      interval: { lower: 2, upper: 4 },
      intervalOmittedReason: null,
    });
    expect(Array.from(replicates)).toEqual([5, Number.NaN, 1, 4, Number.NaN, 3, 2]);
  });

  it('omits the interval when no replicate is defined', () => {
    const summary = summarizeReplicates(
      null,
      Float64Array.from([Number.NaN, Number.NaN]),
      'linear',
      run,
    );
    expect(summary.interval).toBeNull();
    expect(summary.intervalOmittedReason).toBe('no_defined_replicates');
    expect(summary.undefinedReplicates).toBe(2);
    expect(summary.definedReplicates).toBe(0);
  });

  it('keeps an interval even when the point estimate itself is undefined', () => {
    const summary = summarizeReplicates(
      null,
      Float64Array.from([64, 128, Number.NaN]),
      'inverted_cdf',
      run,
    );
    expect(summary.estimate).toBeNull();
    expect(summary.interval).toEqual({ lower: 64, upper: 128 });
  });
});

describe('estimateWithoutResampling', () => {
  it('reports the estimate, zero resamples and the reason', () => {
    expect(estimateWithoutResampling(0.9, 'linear', { ...run, clusters: 1 })).toEqual({
      estimate: 0.9,
      level: 0.5,
      quantile: 'linear',
      method: 'percentile',
      resamples: 0,
      definedReplicates: 0,
      undefinedReplicates: 0,
      clusters: 1,
      seed: 11,
      interval: null,
      intervalOmittedReason: 'fewer_than_two_clusters',
    });
  });
});

describe('resolveQuantiles', () => {
  it('defaults to linear, applies one definition to all, or resolves by name', () => {
    expect(resolveQuantiles(undefined, ['a', 'b'])).toEqual(['linear', 'linear']);
    expect(resolveQuantiles('inverted_cdf', ['a', 'b'])).toEqual(['inverted_cdf', 'inverted_cdf']);
    expect(resolveQuantiles({ b: 'inverted_cdf' }, ['a', 'b'])).toEqual(['linear', 'inverted_cdf']);
  });

  it('rejects unknown names and unknown definitions', () => {
    expect(fieldOf(() => resolveQuantiles({ c: 'linear' }, ['a', 'b']))).toBe('quantile.c');
    expect(fieldOf(() => resolveQuantiles({ a: 'type7' as 'linear' }, ['a']))).toBe('quantile.a');
    expect(fieldOf(() => resolveQuantiles('type7' as 'linear', ['a']))).toBe('quantile');
  });
});

describe('assertStatisticNames', () => {
  it('accepts distinct strings and rejects empty, non-string or duplicate names', () => {
    expect(() => assertStatisticNames(['a', 'b'], 'names')).not.toThrow();
    expect(fieldOf(() => assertStatisticNames([], 'names'))).toBe('names');
    expect(fieldOf(() => assertStatisticNames('a', 'names'))).toBe('names');
    expect(fieldOf(() => assertStatisticNames(['a', 3], 'names'))).toBe('names[1]');
    expect(fieldOf(() => assertStatisticNames(['a', 'a'], 'names'))).toBe('names[1]');
  });
});

describe('summarizeReplicates by selection equals the sorting summary it replaced', () => {
  /** The summary as it was before selection: sort a copy (NaN last), read the defined prefix. */
  function sortingSummary(replicates: Float64Array, quantile: QuantileDefinition, facts: RunFacts) {
    const sorted = replicates.slice().sort();
    let defined = sorted.length;
    while (defined > 0 && Number.isNaN(sorted[defined - 1])) defined--;
    if (defined === 0) return { defined, interval: null };
    const tail = intervalTailProbability(facts.method, facts.level, facts.clusters);
    const interval = percentileIntervalAtTail(
      Array.from(sorted.subarray(0, defined)),
      tail,
      quantile,
    );
    return { defined, interval };
  }

  const value = fc.oneof(
    { weight: 6, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }) },
    { weight: 3, arbitrary: fc.integer({ min: -2, max: 2 }) },
    { weight: 1, arbitrary: fc.constantFrom(Number.NaN, 0, -0, 0.5) },
  );

  it('same interval bits and counts, with NaN, ties, -0 and +0, any level and method (property)', () => {
    fc.assert(
      fc.property(
        fc.array(value, { minLength: 1, maxLength: 700 }),
        fc.constantFrom('linear' as const, 'inverted_cdf' as const),
        fc.constantFrom('percentile' as const, 'expanded_percentile' as const),
        fc.double({ min: 0.05, max: 0.999, noNaN: true }),
        fc.integer({ min: 2, max: 60 }),
        (values, quantile, method, level, clusters) => {
          const replicates = Float64Array.from(values);
          const facts = runFacts(level, method, clusters, 1);
          const summary = summarizeReplicates(0, replicates, quantile, facts);
          const reference = sortingSummary(replicates, quantile, facts);
          expect(summary.definedReplicates).toBe(reference.defined);
          // toStrictEqual tells -0 from +0.
          expect(summary.interval).toStrictEqual(reference.interval);
          expect(Array.from(replicates)).toStrictEqual(values);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('puts -0 below +0 as the sort did, at the very position the interval reads', () => {
    // 2 values: the lower end of a 0.5 percentile interval (type 7) reads index 0.25 -> x0, x1.
    const replicates = Float64Array.from([0, -0, 0, 0]);
    const summary = summarizeReplicates(0, replicates, 'inverted_cdf', run);
    expect(Object.is(summary.interval?.lower, -0)).toBe(true);
  });
});
