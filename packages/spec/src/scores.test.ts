import { describe, expect, it } from 'vitest';
import { EimcResultSchema, QualityAlphasSchema, QualityFactorsSchema, RatioSchema } from './scores';

const factors = { r: 1, t: 0.5, s: 0.25, u: 1, i: 0, oneMinusF: 1 };

describe('QualityFactorsSchema', () => {
  it('accepts factors in [0, 1] including the exact ends', () => {
    expect(QualityFactorsSchema.parse(factors)).toEqual(factors);
  });

  it.each([
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['a negative factor', -0.01],
    ['a factor above 1', 1.0000001],
  ])('rejects %s', (_label, bad) => {
    const result = QualityFactorsSchema.safeParse({ ...factors, t: bad });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual(['t']);
  });
});

describe('QualityAlphasSchema', () => {
  it('accepts the baseline 1/6 weights and rejects weights that do not sum to 1', () => {
    const sixth = 1 / 6;
    expect(
      QualityAlphasSchema.safeParse({
        r: sixth,
        t: sixth,
        s: sixth,
        u: sixth,
        i: sixth,
        oneMinusF: sixth,
      }).success,
    ).toBe(true);
    const bad = QualityAlphasSchema.safeParse({
      r: 0.2,
      t: 0.2,
      s: 0.2,
      u: 0.2,
      i: 0.2,
      oneMinusF: 0.2,
    });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]?.message).toBe('the six alphas must sum to 1');
  });
});

describe('RatioSchema', () => {
  it('keeps numerator, denominator and rate consistent', () => {
    expect(RatioSchema.safeParse({ numerator: 3, denominator: 8, rate: 0.375 }).success).toBe(true);
    expect(RatioSchema.safeParse({ numerator: 0, denominator: 0, rate: null }).success).toBe(true);
    expect(RatioSchema.safeParse({ numerator: 0, denominator: 0, rate: 0 }).success).toBe(false);
    expect(RatioSchema.safeParse({ numerator: 9, denominator: 8, rate: 1 }).success).toBe(false);
    expect(RatioSchema.safeParse({ numerator: 1.5, denominator: 8, rate: 0.1875 }).success).toBe(
      false,
    );
  });
});

describe('EimcResultSchema', () => {
  const base = {
    tau: 0.8,
    testedLoads: [32, 64],
    passingLoads: [],
    nonmonotone: false,
    sustainedPrefix: null,
  };

  it('represents no passing load as null, never 0', () => {
    expect(
      EimcResultSchema.safeParse({ ...base, value: null, status: 'no_passing_load' }).success,
    ).toBe(true);
    expect(
      EimcResultSchema.safeParse({ ...base, value: 0, status: 'no_passing_load' }).success,
    ).toBe(false);
    expect(EimcResultSchema.safeParse({ ...base, value: null, status: 'capacity' }).success).toBe(
      false,
    );
  });

  it('accepts a right-censored lower bound', () => {
    const result = {
      ...base,
      value: 64,
      status: 'lower_bound',
      passingLoads: [32, 64],
      sustainedPrefix: 64,
    };
    expect(EimcResultSchema.parse(result)).toEqual(result);
  });
});
