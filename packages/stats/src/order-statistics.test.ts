import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { intervalTailProbability } from './interval-method.js';
import { placeOrderStatistics, selectOrderStatistic } from './order-statistics.js';
import { quantileOfSorted, quantileReadPositions } from './quantile.js';

/** Values with many ties (a few distinct levels) or spread out, never NaN, never -0. */
const sample = fc.oneof(
  fc.array(fc.integer({ min: -3, max: 3 }), { minLength: 1, maxLength: 1500 }),
  fc.array(fc.double({ noNaN: true, min: -1e6, max: 1e6 }), { minLength: 1, maxLength: 1500 }),
);
const positiveZero = (values: number[]): Float64Array =>
  Float64Array.from(values, (value) => (value === 0 ? 0 : value));

describe('selectOrderStatistic (Floyd-Rivest)', () => {
  it('puts the k-th smallest at k, no larger value before it and no smaller after (property)', () => {
    fc.assert(
      fc.property(sample, fc.nat(), (raw, pick) => {
        const values = positiveZero(raw);
        const sorted = values.slice().sort();
        const k = pick % values.length;
        selectOrderStatistic(values, k, 0, values.length - 1);
        expect(values[k]).toBe(sorted[k]);
        for (let i = 0; i < k; i++) expect(values[i]).toBeLessThanOrEqual(values[k] as number);
        for (let i = k + 1; i < values.length; i++)
          expect(values[i]).toBeGreaterThanOrEqual(values[k] as number);
        // A permutation: the same multiset as before.
        expect(values.slice().sort()).toStrictEqual(sorted);
      }),
      { numRuns: 300 },
    );
  });
});

describe('placeOrderStatistics', () => {
  it('places every requested position as a full sort would, pairs and repeats included (property)', () => {
    fc.assert(
      fc.property(sample, fc.array(fc.nat(), { minLength: 1, maxLength: 6 }), (raw, picks) => {
        const values = positiveZero(raw);
        const sorted = values.slice().sort();
        const n = values.length;
        const positions = picks.map((pick) => pick % n).sort((a, b) => a - b);
        // Adjacent pairs, as linear interpolation asks for them.
        const paired = positions.flatMap((k) => (k + 1 < n ? [k, k + 1] : [k]));
        placeOrderStatistics(values, n, paired);
        for (const k of paired) expect(values[k]).toBe(sorted[k]);
      }),
      { numRuns: 300 },
    );
  });

  it('reads the same interval as the sorted array at the pilot tails (2000 replicates, 50 worlds)', () => {
    const tail = intervalTailProbability('expanded_percentile', 0.95, 50);
    fc.assert(
      fc.property(
        fc.array(fc.double({ noNaN: true, min: 0, max: 1 }), { minLength: 2000, maxLength: 2000 }),
        fc.constantFrom('linear' as const, 'inverted_cdf' as const),
        (raw, definition) => {
          const values = positiveZero(raw);
          const sorted = Array.from(values.slice().sort());
          const positions = [
            ...quantileReadPositions(2000, tail, definition),
            ...quantileReadPositions(2000, 1 - tail, definition),
          ];
          placeOrderStatistics(values, 2000, positions);
          const placed = values as unknown as number[];
          for (const p of [tail, 1 - tail])
            expect(quantileOfSorted(placed, p, definition)).toBe(
              quantileOfSorted(sorted, p, definition),
            );
        },
      ),
      { numRuns: 40 },
    );
  });
});
