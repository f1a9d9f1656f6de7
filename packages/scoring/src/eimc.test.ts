import { type CapacityCurve, EimcResultSchema } from '@chi/spec';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { eimc, eimcFromScores, eimcSensitivity } from './eimc';

const factors = { r: 1, t: 1, s: 1, u: 1, i: 1, oneMinusF: 1 };
const curveOf = (scores: readonly number[], loads = [32, 64, 128, 256]): CapacityCurve =>
  scores.map((qualityScore, k) => ({ load: loads[k] as number, qualityScore, factors, worlds: 3 }));

describe('eimc', () => {
  it('reports capacity below the largest tested load', () => {
    expect(eimc(curveOf([0.95, 0.85, 0.7, 0.6]))).toEqual({
      tau: 0.8,
      value: 64,
      status: 'capacity',
      testedLoads: [32, 64, 128, 256],
      passingLoads: [32, 64],
      nonmonotone: false,
      sustainedPrefix: 64,
    });
  });

  it('flags a nonmonotone curve and keeps the largest passing load, with the sustained prefix', () => {
    const result = eimc(curveOf([0.9, 0.7, 0.85, 0.6]));
    expect(result).toEqual({
      tau: 0.8,
      value: 128,
      status: 'capacity',
      testedLoads: [32, 64, 128, 256],
      passingLoads: [32, 128],
      nonmonotone: true,
      sustainedPrefix: 32,
    });
  });

  it('is a right-censored lower bound when every load passes', () => {
    expect(eimc(curveOf([1, 0.9, 0.85, 0.8]))).toMatchObject({
      value: 256,
      status: 'lower_bound',
      sustainedPrefix: 256,
      nonmonotone: false,
    });
  });

  it('is a lower bound when only the largest load passes (nonmonotone, no prefix)', () => {
    expect(eimc(curveOf([0.5, 0.6, 0.7, 0.81]))).toMatchObject({
      value: 256,
      status: 'lower_bound',
      sustainedPrefix: null,
      nonmonotone: true,
    });
  });

  it('reports no passing load as null, never 0', () => {
    const result = eimc(curveOf([0.79, 0.5, 0.2, 0]));
    expect(result).toEqual({
      tau: 0.8,
      value: null,
      status: 'no_passing_load',
      testedLoads: [32, 64, 128, 256],
      passingLoads: [],
      nonmonotone: false,
      sustainedPrefix: null,
    });
    expect(EimcResultSchema.safeParse(result).success).toBe(true);
  });

  it('compares Q_M >= tau exactly, without tolerance', () => {
    expect(eimc(curveOf([0.8]), 0.8).value).toBe(32);
    expect(eimc(curveOf([0.7999999999999999]), 0.8).value).toBeNull();
  });

  it('reports sensitivity at 0.7, 0.8 and 0.9 by default', () => {
    const results = eimcSensitivity(curveOf([0.95, 0.85, 0.75, 0.6]));
    expect(results.map((r) => [r.tau, r.value, r.status])).toEqual([
      [0.7, 128, 'capacity'],
      [0.8, 64, 'capacity'],
      [0.9, 32, 'capacity'],
    ]);
  });

  it('rejects an empty grid, unsorted loads and thresholds outside [0, 1]', () => {
    expect(() => eimc([])).toThrow('curve: expected at least one tested load, found none');
    expect(() => eimc(curveOf([0.9, 0.9], [64, 32]))).toThrow(
      'loads[1]: loads must be positive and strictly increasing, found 32 after 64',
    );
    expect(() => eimc(curveOf([0.9]), 1.5)).toThrow(
      'tau: expected a threshold in [0, 1], found 1.5',
    );
    expect(() => eimcSensitivity(curveOf([0.9]), [0.7, Number.NaN])).toThrow('taus[1]');
    expect(() => eimcFromScores([32, 64], [0.9], 0.8)).toThrow(
      'scores: expected one score per load (2), found 1',
    );
    expect(() => eimcFromScores(new Float64Array([32]), new Float64Array([1.5]), 0.8)).toThrow(
      'scores[0]',
    );
  });

  it('the kernel agrees with eimc on every curve', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 6 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (scores, tau) => {
          const loads = scores.map((_, k) => 2 ** (k + 5));
          const result = eimc(curveOf(scores, loads), tau);
          expect(eimcFromScores(Float64Array.from(loads), Float64Array.from(scores), tau)).toBe(
            result.value,
          );
          expect(EimcResultSchema.safeParse(result).success).toBe(true);
          // The prefix never exceeds the value, and nonmonotone means they differ.
          if (result.sustainedPrefix !== null)
            expect(result.sustainedPrefix).toBeLessThanOrEqual(result.value as number);
          expect(result.nonmonotone).toBe(result.value !== result.sustainedPrefix);
        },
      ),
      { numRuns: 1000 },
    );
  });
});
