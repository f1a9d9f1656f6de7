import { InvalidArgumentError } from '@chi/spec';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkAlphas, EQUAL_ALPHAS, qualityScore, qualityScoreOf } from './quality-score';

const ones = { r: 1, t: 1, s: 1, u: 1, i: 1, oneMinusF: 1 };

describe('qualityScore', () => {
  it('is the weighted geometric mean of the six factors', () => {
    expect(qualityScore(ones)).toBe(1);
    expect(qualityScore({ ...ones, oneMinusF: 0.5 })).toBeCloseTo(0.8908987181403393, 15); // 0.5^(1/6)
    expect(qualityScore({ r: 0.9, t: 0.8, s: 0.7, u: 1, i: 0.6, oneMinusF: 0.75 })).toBeCloseTo(
      (0.9 * 0.8 * 0.7 * 1 * 0.6 * 0.75) ** (1 / 6),
      14,
    );
    expect(qualityScore({ r: 0.8, t: 0.8, s: 0.8, u: 0.8, i: 0.8, oneMinusF: 0.8 })).toBe(0.8);
  });

  it('gives exactly 0 when any weighted factor is 0 (no epsilon floor)', () => {
    expect(qualityScore({ ...ones, r: 0 })).toBe(0);
    expect(qualityScore({ ...ones, oneMinusF: 0 })).toBe(0);
  });

  it('ignores a factor whose weight is 0', () => {
    const alphas = { r: 0.5, t: 0.5, s: 0, u: 0, i: 0, oneMinusF: 0 };
    expect(qualityScore({ ...ones, r: 0.25, t: 1, s: 0 }, alphas)).toBe(0.5);
  });

  it('rejects factors outside [0, 1] or NaN, naming the factor', () => {
    expect(() => qualityScore({ ...ones, u: 1.2 })).toThrow(
      'factors.u: expected a number in [0, 1], found 1.2',
    );
    expect(() => qualityScore({ ...ones, t: Number.NaN })).toThrow(
      'factors.t: expected a number in [0, 1], found NaN',
    );
    expect(() => qualityScore({ ...ones, s: -0.1 })).toThrow(InvalidArgumentError);
    expect(() => qualityScoreOf(1, 1, 1, 1, 1, 2)).toThrow('factors.oneMinusF');
  });

  it('rejects alphas that do not sum to 1 or lie outside [0, 1]', () => {
    const alphas = { r: 0.2, t: 0.2, s: 0.2, u: 0.2, i: 0.2, oneMinusF: 0.2 };
    expect(() => qualityScore(ones, alphas)).toThrow(
      'alphas: the six alphas must sum to 1 (tolerance 1e-9), found 1.2',
    );
    expect(() => qualityScore(ones, { ...alphas, r: -0.2, t: 0.4 })).toThrow(
      'alphas.r: expected a weight in [0, 1], found -0.2',
    );
    expect(() => checkAlphas({ ...EQUAL_ALPHAS, i: Number.NaN })).toThrow('alphas.i');
    expect(() =>
      checkAlphas({ r: 1 / 6 + 5e-10, t: 1 / 6, s: 1 / 6, u: 1 / 6, i: 1 / 6, oneMinusF: 1 / 6 }),
    ).not.toThrow();
    expect(() =>
      checkAlphas({ r: 1 / 6 + 5e-9, t: 1 / 6, s: 1 / 6, u: 1 / 6, i: 1 / 6, oneMinusF: 1 / 6 }),
    ).toThrow(InvalidArgumentError);
  });

  const factor = fc.double({ min: 0, max: 1, noNaN: true });
  const factors = fc.record({
    r: factor,
    t: factor,
    s: factor,
    u: factor,
    i: factor,
    oneMinusF: factor,
  });

  it('lies within [min factor, max factor] with equal weights', () => {
    fc.assert(
      fc.property(factors, (f) => {
        const values = Object.values(f);
        const q = qualityScore(f);
        expect(q).toBeGreaterThanOrEqual(Math.min(...values));
        expect(q).toBeLessThanOrEqual(Math.max(...values));
      }),
      { numRuns: 2000 },
    );
  });

  it('agrees with the closed form (r t s u i (1-f))^(1/6)', () => {
    fc.assert(
      fc.property(factors, (f) => {
        const closed = (f.r * f.t * f.s * f.u * f.i * f.oneMinusF) ** (1 / 6);
        expect(Math.abs(qualityScore(f) - closed)).toBeLessThan(1e-12);
      }),
      { numRuns: 1000 },
    );
  });

  it('the kernel and the object form agree', () => {
    fc.assert(
      fc.property(factors, (f) => {
        expect(qualityScoreOf(f.r, f.t, f.s, f.u, f.i, f.oneMinusF)).toBe(qualityScore(f));
      }),
    );
  });
});
