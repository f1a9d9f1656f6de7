import { InvalidArgumentError } from '@chi/spec';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { quantileOfSorted } from './quantile.js';
import { simultaneousBands } from './simultaneous-bands.js';

describe('simultaneousBands (max-|t|)', () => {
  it('matches a hand-worked family of two cells', () => {
    // Cell 0: replicates -1, 1, 0, 0 around 0: sd = sqrt(2 / 3). Cell 1: 1, 1, 3, -1 around 1:
    // sd = sqrt(8 / 3). Every replicate's max |t| is sqrt(1.5), so q = sqrt(1.5) and the bands are
    // 0 +- sqrt(1.5) sqrt(2/3) = +-1 and 1 +- sqrt(1.5) sqrt(8/3) = 1 +- 2.
    const result = simultaneousBands({
      estimates: [0, 1],
      replicates: [
        [-1, 1],
        [1, 1],
        [0, 3],
        [0, -1],
      ],
    });
    expect(result.critical).toBeCloseTo(Math.sqrt(1.5), 12);
    expect(result.familySize).toBe(2);
    expect(result.bands[0]?.lower).toBeCloseTo(-1, 12);
    expect(result.bands[0]?.upper).toBeCloseTo(1, 12);
    expect(result.bands[1]?.lower).toBeCloseTo(-1, 12);
    expect(result.bands[1]?.upper).toBeCloseTo(3, 12);
  });

  it('takes the type-7 quantile of the per-replicate maxima', () => {
    // One cell, estimate 0, replicates 0, 1, 2, 3, 4 (sd = sqrt(2.5)): |t| = k / sqrt(2.5).
    const result = simultaneousBands({
      estimates: [0],
      replicates: [[0], [1], [2], [3], [4]],
      level: 0.5,
    });
    expect(result.critical).toBeCloseTo(2 / Math.sqrt(2.5), 12);
    expect(result.bands[0]?.upper).toBeCloseTo(2, 12);
  });

  it('gives undefined cells no band and zero-spread cells their estimate', () => {
    const result = simultaneousBands({
      estimates: [null, 2, 0],
      replicates: [
        [null, 2, -1],
        [null, 2, 1],
        [null, 2, null],
      ],
    });
    expect(result.bands[0]).toBeNull();
    expect(result.bands[1]).toEqual({ lower: 2, upper: 2, sd: 0 });
    expect(result.familySize).toBe(1);
    expect(result.bands[2]?.sd).toBeCloseTo(Math.SQRT2, 12);
  });

  it('rejects a replicate of the wrong width and a bad level, naming the field', () => {
    expect(() => simultaneousBands({ estimates: [0, 1], replicates: [[0]] })).toThrow(
      InvalidArgumentError,
    );
    expect(() => simultaneousBands({ estimates: [0, 1], replicates: [[0]] })).toThrow(
      /replicates\[0\]/,
    );
    expect(() => simultaneousBands({ estimates: [0], replicates: [[0]], level: 1 })).toThrow(
      /level/,
    );
  });

  it('every band is at least as wide as its own pointwise studentized band (property)', () => {
    const value = fc.double({ min: -10, max: 10, noNaN: true, noDefaultInfinity: true });
    const family = fc.integer({ min: 1, max: 6 }).chain((width) =>
      fc.record({
        estimates: fc.array(value, { minLength: width, maxLength: width }),
        replicates: fc.array(fc.array(value, { minLength: width, maxLength: width }), {
          minLength: 2,
          maxLength: 40,
        }),
      }),
    );
    fc.assert(
      fc.property(family, ({ estimates, replicates }) => {
        const result = simultaneousBands({ estimates, replicates });
        estimates.forEach((estimate, cell) => {
          const band = result.bands[cell];
          if (band === null || band === undefined || band.sd === 0) return;
          const own = replicates
            .map((row) => Math.abs((row[cell] as number) - estimate) / band.sd)
            .sort((a, b) => a - b);
          const half = quantileOfSorted(own, 0.95) * band.sd;
          expect(band.upper - estimate).toBeGreaterThanOrEqual(half - 1e-9);
          expect(estimate - band.lower).toBeGreaterThanOrEqual(half - 1e-9);
        });
      }),
    );
  });
});
