import { InvalidArgumentError } from '@chi/spec';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { percentileInterval, QUANTILE_DEFINITIONS, quantileOfSorted } from './quantile.js';

const finite = fc.double({ min: -1e6, max: 1e6, noNaN: true, noDefaultInfinity: true });
const sortedSample = fc
  .array(finite, { minLength: 1, maxLength: 60 })
  .map((values) => values.sort((a, b) => a - b));

describe('quantileOfSorted, linear (type 7)', () => {
  it('matches hand-computed values: h = (n - 1) p, interpolate between x[floor h] and x[ceil h]', () => {
    // R: quantile(c(1, 2, 3, 4), c(0, 0.25, 0.5, 0.975, 1)) -> 1, 1.75, 2.5, 3.925, 4
    expect(quantileOfSorted([1, 2, 3, 4], 0)).toBe(1);
    expect(quantileOfSorted([1, 2, 3, 4], 0.25)).toBe(1.75); // h = 0.75
    expect(quantileOfSorted([1, 2, 3, 4], 0.5)).toBe(2.5); // h = 1.5
    expect(quantileOfSorted([1, 2, 3, 4], 0.975)).toBeCloseTo(3.925, 12); // h = 2.925
    expect(quantileOfSorted([1, 2, 3, 4], 1)).toBe(4);
    // R: quantile(c(10, 20, 40), c(0.1, 0.9)) -> 12, 36  (h = 0.2 and 1.8)
    expect(quantileOfSorted([10, 20, 40], 0.1)).toBeCloseTo(12, 12);
    expect(quantileOfSorted([10, 20, 40], 0.9)).toBeCloseTo(36, 12);
    // An integer h returns the order statistic itself: n = 5, p = 0.25 -> h = 1 -> x[1].
    expect(quantileOfSorted([1, 2, 3, 4, 5], 0.25)).toBe(2);
    expect(quantileOfSorted([7], 0.3)).toBe(7);
  });

  it('equals the textbook type-7 formula on arbitrary samples', () => {
    fc.assert(
      fc.property(sortedSample, fc.double({ min: 0, max: 1, noNaN: true }), (sorted, p) => {
        const h = (sorted.length - 1) * p;
        const below = sorted[Math.floor(h)] as number;
        const above = sorted[Math.ceil(h)] as number;
        const expected = below + (h - Math.floor(h)) * (above - below);
        const actual = quantileOfSorted(sorted, p);
        expect(Math.abs(actual - expected)).toBeLessThanOrEqual(1e-9 * (1 + Math.abs(expected)));
        expect(actual).toBeGreaterThanOrEqual(below);
        expect(actual).toBeLessThanOrEqual(above);
      }),
    );
  });
});

describe('quantileOfSorted, inverted_cdf (type 1)', () => {
  it('matches hand-computed values: x[max(ceil(n p), 1) - 1]', () => {
    // R: quantile(1:4, c(0, 0.25, 0.26, 0.5, 0.75, 1), type = 1) -> 1, 1, 2, 2, 3, 4
    expect(quantileOfSorted([1, 2, 3, 4], 0, 'inverted_cdf')).toBe(1);
    expect(quantileOfSorted([1, 2, 3, 4], 0.25, 'inverted_cdf')).toBe(1);
    expect(quantileOfSorted([1, 2, 3, 4], 0.26, 'inverted_cdf')).toBe(2);
    expect(quantileOfSorted([1, 2, 3, 4], 0.5, 'inverted_cdf')).toBe(2);
    expect(quantileOfSorted([1, 2, 3, 4], 0.75, 'inverted_cdf')).toBe(3);
    expect(quantileOfSorted([1, 2, 3, 4], 1, 'inverted_cdf')).toBe(4);
  });

  it('snaps n p to an integer when binary rounding only nudged it', () => {
    const values = Array.from({ length: 2000 }, (_, i) => i + 1);
    const tail = (1 - 0.95) / 2; // 0.025000000000000022, so n p = 50.00000000000004
    expect(2000 * tail).toBeGreaterThan(50);
    expect(quantileOfSorted(values, tail, 'inverted_cdf')).toBe(50);
    expect(quantileOfSorted(values, 1 - tail, 'inverted_cdf')).toBe(1950);
  });

  it('always returns an observed value, monotone in p', () => {
    fc.assert(
      fc.property(
        sortedSample,
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (sorted, p, q) => {
          const [low, high] = p <= q ? [p, q] : [q, p];
          const atLow = quantileOfSorted(sorted, low, 'inverted_cdf');
          expect(sorted).toContain(atLow);
          expect(atLow).toBeLessThanOrEqual(quantileOfSorted(sorted, high, 'inverted_cdf'));
        },
      ),
    );
  });
});

describe('percentileInterval', () => {
  it('takes the (1 - level) / 2 and (1 + level) / 2 quantiles', () => {
    expect(percentileInterval([5, 1, 4, 2, 3], { level: 0.5 })).toEqual({ lower: 2, upper: 4 });
    const values = Array.from({ length: 2000 }, (_, i) => 2000 - i); // 1..2000, unsorted
    const linear = percentileInterval(values);
    expect(linear.lower).toBeCloseTo(50.975, 9); // h = 1999 x 0.025 = 49.975
    expect(linear.upper).toBeCloseTo(1950.025, 9); // h = 1999 x 0.975 = 1949.025
    expect(percentileInterval(values, { quantile: 'inverted_cdf' })).toEqual({
      lower: 50,
      upper: 1950,
    });
  });

  it('does not modify its input', () => {
    const values = [3, 1, 2];
    percentileInterval(values);
    expect(values).toEqual([3, 1, 2]);
  });

  it('gives a zero-width interval for identical values', () => {
    expect(percentileInterval([0.25, 0.25, 0.25])).toEqual({ lower: 0.25, upper: 0.25 });
  });

  it('rejects empty input, non-finite values, bad levels and unknown definitions', () => {
    const field = (run: () => unknown): string | undefined => {
      try {
        run();
      } catch (error) {
        return InvalidArgumentError.isInstance(error) ? error.field : 'not a InvalidArgumentError';
      }
      return undefined;
    };
    expect(field(() => percentileInterval([]))).toBe('values');
    expect(field(() => percentileInterval([1, Number.NaN]))).toBe('values[1]');
    expect(field(() => percentileInterval([1], { level: 1 }))).toBe('level');
    expect(
      field(() => percentileInterval([1], { quantile: 'nearest' as unknown as 'linear' })),
    ).toBe('quantile');
  });

  it('always has lower <= upper, inside [min, max], for every definition and level', () => {
    fc.assert(
      fc.property(
        fc.array(finite, { minLength: 1, maxLength: 60 }),
        fc.double({ min: 0.001, max: 0.999, noNaN: true }),
        fc.constantFrom(...QUANTILE_DEFINITIONS),
        (values, level, quantile) => {
          const { lower, upper } = percentileInterval(values, { level, quantile });
          expect(lower).toBeLessThanOrEqual(upper);
          expect(lower).toBeGreaterThanOrEqual(Math.min(...values));
          expect(upper).toBeLessThanOrEqual(Math.max(...values));
        },
      ),
    );
  });

  it('widens (weakly) as the level grows', () => {
    fc.assert(
      fc.property(
        fc.array(finite, { minLength: 1, maxLength: 60 }),
        fc.double({ min: 0.001, max: 0.999, noNaN: true }),
        fc.double({ min: 0.001, max: 0.999, noNaN: true }),
        fc.constantFrom(...QUANTILE_DEFINITIONS),
        (values, a, b, quantile) => {
          const narrow = percentileInterval(values, { level: Math.min(a, b), quantile });
          const wide = percentileInterval(values, { level: Math.max(a, b), quantile });
          expect(wide.lower).toBeLessThanOrEqual(narrow.lower);
          expect(wide.upper).toBeGreaterThanOrEqual(narrow.upper);
        },
      ),
    );
  });
});
