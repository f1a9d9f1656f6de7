import { CapacityCurveSchema, type MemoryScore, type QualityFactors } from '@chi/spec';
import { WithinWorldQualityCurveSchema } from '@chi/spec/internal';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { capacityCurve, meanWithinWorldCurve } from './capacity-curve';
import { qualityScore } from './quality-score';

const ratio = { numerator: 1, denominator: 1, rate: 1 };
function scoreWith(
  factors: QualityFactors,
  quality: number | null = qualityScore(factors),
): MemoryScore {
  return {
    strata: {
      r: ratio,
      t: ratio,
      s: ratio,
      u: ratio,
      i: ratio,
      f: { numerator: 0, denominator: 1, rate: 0 },
    },
    lures: {
      total: 1,
      correctAbstention: 1,
      unsupportedAffirmative: 0,
      invalid: 0,
      f: { numerator: 0, denominator: 1, rate: 0 },
      falseAffirmativeRate: { numerator: 0, denominator: 1, rate: 0 },
      invalidLureRate: { numerator: 0, denominator: 1, rate: 0 },
    },
    factors,
    qualityScore: quality,
    unrequestedCount: 0,
  };
}
const perfect = { r: 1, t: 1, s: 1, u: 1, i: 1, oneMinusF: 1 };
const noRetrieval = { ...perfect, r: 0 };

describe('capacity curves', () => {
  it('primary: Q_M of world-mean factors; secondary: mean within-world Q_M (a different number)', () => {
    const perLoad = [
      { load: 64, worlds: [scoreWith(perfect), scoreWith(perfect)] },
      { load: 32, worlds: [scoreWith(perfect), scoreWith(noRetrieval)] },
    ];
    const primary = capacityCurve(perLoad);
    expect(primary).toEqual([
      { load: 32, qualityScore: 0.5 ** (1 / 6), factors: { ...perfect, r: 0.5 }, worlds: 2 },
      { load: 64, qualityScore: 1, factors: perfect, worlds: 2 },
    ]);
    expect(meanWithinWorldCurve(perLoad)).toEqual([
      {
        estimand: 'mean_within_world_quality_score',
        load: 32,
        meanWithinWorldQualityScore: 0.5,
        worlds: 2,
      },
      {
        estimand: 'mean_within_world_quality_score',
        load: 64,
        meanWithinWorldQualityScore: 1,
        worlds: 2,
      },
    ]);
    expect(CapacityCurveSchema.safeParse(primary).success).toBe(true);
    expect(WithinWorldQualityCurveSchema.safeParse(meanWithinWorldCurve(perLoad)).success).toBe(
      true,
    );
  });

  it('the secondary curve is never above the primary one (Q_M is concave)', () => {
    const factor = fc.double({ min: 0, max: 1, noNaN: true });
    const factors = fc.record({
      r: factor,
      t: factor,
      s: factor,
      u: factor,
      i: factor,
      oneMinusF: factor,
    });
    fc.assert(
      fc.property(fc.array(factors, { minLength: 1, maxLength: 6 }), (worlds) => {
        const perLoad = [{ load: 32, worlds: worlds.map((f) => scoreWith(f)) }];
        const primary = capacityCurve(perLoad)[0]?.qualityScore as number;
        const secondary = meanWithinWorldCurve(perLoad)[0]?.meanWithinWorldQualityScore as number;
        expect(secondary).toBeLessThanOrEqual(primary + 1e-12);
      }),
      { numRuns: 500 },
    );
  });

  it('refuses repeated loads, empty loads and scores with placeholder factors', () => {
    expect(() => capacityCurve([])).toThrow(
      'perLoad: expected at least one tested load, found none',
    );
    expect(() =>
      capacityCurve([
        { load: 32, worlds: [scoreWith(perfect)] },
        { load: 32, worlds: [scoreWith(perfect)] },
      ]),
    ).toThrow('perLoad[1].load: load 32 is listed twice');
    expect(() => capacityCurve([{ load: 32, worlds: [] }])).toThrow(
      'perLoad[0].worlds: load 32 has no world scores',
    );
    expect(() => capacityCurve([{ load: 0, worlds: [scoreWith(perfect)] }])).toThrow(
      'perLoad[0].load',
    );
    expect(() =>
      meanWithinWorldCurve([{ load: 32, worlds: [scoreWith(perfect), scoreWith(perfect, null)] }]),
    ).toThrow('perLoad[0].worlds[1]: world score at load 32 has a stratum without probes');
  });
});
