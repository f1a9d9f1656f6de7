import {
  type AxisProfile,
  ChiResultSchema,
  type HumanCalibration,
  InvalidArgumentError,
} from '@chi/spec';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { axisSimilarity, chi, NO_CALIBRATION_REASON } from './chi';

// A synthetic calibration for tests only: not a human reference.
const calibration: HumanCalibration = {
  id: 'synthetic-test-calibration-1',
  description: 'made-up numbers for unit tests',
  synthetic: true,
  axes: {
    R: { accuracy: { mu: 0.7, s: 0.1 } },
    M: { recall: { mu: 0.5, s: 0.25 }, intrusions: { mu: 2, s: 1 } },
    C: { persistence: { mu: 0, s: 1 } },
    A: { shift: { mu: 0.2, s: 0.1 } },
    I: { integration: { mu: 0.6, s: 0.2 } },
  },
};
// Standardized distances: R 0, M (1^2 + 0^2)/2 = 0.5, C 2^2 = 4, A 0, I 1^2 = 1.
const profile: AxisProfile = {
  axes: {
    R: { accuracy: 0.7 },
    M: { recall: 0.75, intrusions: 2, extraUncalibrated: 99 },
    C: { persistence: 2 },
    A: { shift: 0.2 },
    I: { integration: 0.8 },
  },
};

describe('axisSimilarity', () => {
  it('is exp(-0.5 * mean squared standardized difference)', () => {
    expect(axisSimilarity({ latency: 1.2 }, { latency: { mu: 1, s: 0.2 } })).toBeCloseTo(
      Math.exp(-0.5),
      15,
    );
    expect(axisSimilarity({ a: 1, b: 3 }, { a: { mu: 1, s: 1 }, b: { mu: 1, s: 1 } })).toBeCloseTo(
      Math.exp(-1),
      15,
    );
    expect(axisSimilarity({ a: 5 }, { a: { mu: 5, s: 3 } })).toBe(1);
  });

  it('enforces s > 0 and finite values, naming the feature', () => {
    expect(() => axisSimilarity({ a: 1 }, { a: { mu: 0, s: 0 } })).toThrow(
      'calibration.a.s: the scale s must be a finite number > 0, found 0',
    );
    expect(() => axisSimilarity({ a: 1 }, { a: { mu: 0, s: -1 } })).toThrow(InvalidArgumentError);
    expect(() => axisSimilarity({ a: Number.NaN }, { a: { mu: 0, s: 1 } })).toThrow(
      'features.a: expected a finite feature value, found NaN',
    );
    expect(() => axisSimilarity({}, {})).toThrow('the calibration has no features');
  });

  it('requires every calibrated feature and ignores uncalibrated ones', () => {
    expect(() => axisSimilarity({ b: 1 }, { a: { mu: 0, s: 1 } }, 'profile.axes.M')).toThrow(
      'profile.axes.M.a: the calibration has this feature but the profile does not',
    );
    expect(axisSimilarity({ a: 0, other: 1e9 }, { a: { mu: 0, s: 1 } })).toBe(1);
  });

  it('lies in [0, 1] and equals 1 only at the calibration mean', () => {
    fc.assert(
      fc.property(
        fc.double({ min: -1e6, max: 1e6, noNaN: true }),
        fc.double({ min: 1e-3, max: 1e3, noNaN: true }),
        (z, s) => {
          const h = axisSimilarity({ f: z }, { f: { mu: 0, s } });
          expect(h).toBeGreaterThanOrEqual(0);
          expect(h).toBeLessThanOrEqual(1);
          if (z !== 0 && Math.abs(z / s) > 1e-7) expect(h).toBeLessThan(1);
        },
      ),
    );
  });
});

describe('chi', () => {
  it('is null with the reason, never a number, without a calibration', () => {
    const result = chi(profile, null);
    expect(result).toEqual({
      value: null,
      calibrationId: null,
      reason: NO_CALIBRATION_REASON,
      axisSimilarity: null,
      weights: { R: 0.2, M: 0.2, C: 0.2, A: 0.2, I: 0.2 },
    });
    expect(ChiResultSchema.safeParse(result).success).toBe(true);
  });

  it('is 100 x the weighted geometric mean of the axis similarities and echoes the calibration ID', () => {
    const result = chi(profile, calibration);
    const h = { R: 1, M: Math.exp(-0.25), C: Math.exp(-2), A: 1, I: Math.exp(-0.5) };
    expect(result.calibrationId).toBe('synthetic-test-calibration-1');
    expect(result.reason).toBeNull();
    expect(result.axisSimilarity?.M).toBeCloseTo(h.M, 15);
    expect(result.axisSimilarity?.C).toBeCloseTo(h.C, 15);
    // 100 * exp(-(0.25 + 2 + 0.5) / 5) = 100 * exp(-0.55)
    expect(result.value).toBeCloseTo(100 * Math.exp(-0.55), 12);
    expect(ChiResultSchema.safeParse(result).success).toBe(true);
  });

  it('uses custom weights and skips zero-weight axes', () => {
    const result = chi({ axes: { C: { persistence: 2 } } }, calibration, { C: 1 });
    expect(result.value).toBeCloseTo(100 * Math.exp(-2), 12);
    expect(result.weights).toEqual({ R: 0, M: 0, C: 1, A: 0, I: 0 });
    expect(Object.keys(result.axisSimilarity ?? {})).toEqual(['C']);
  });

  it('is exactly 0 when a weighted axis has zero similarity', () => {
    const far: AxisProfile = { axes: { ...profile.axes, A: { shift: 1e200 } } };
    const result = chi(far, calibration);
    expect(result.axisSimilarity?.A).toBe(0);
    expect(result.value).toBe(0);
  });

  it('refuses a required axis or feature the profile or calibration lacks, naming it', () => {
    const { I: _dropped, ...withoutI } = profile.axes;
    expect(() => chi({ axes: withoutI }, calibration)).toThrow(
      'profile.axes.I: axis I has weight 0.2 and a calibration, but the profile does not measure it',
    );
    expect(() => chi({ axes: { ...profile.axes, M: { recall: 0.5 } } }, calibration)).toThrow(
      'profile.axes.M.intrusions',
    );
    const { R: _r, ...partial } = calibration.axes;
    expect(() => chi(profile, { ...calibration, axes: partial })).toThrow(
      'calibration.axes.R: axis R has weight 0.2',
    );
  });

  it('rejects weights that are unknown, negative or do not sum to 1', () => {
    expect(() => chi(profile, calibration, { R: 0.5, M: 0.4 })).toThrow(
      'weights: the axis weights must sum to 1 (tolerance 1e-9), found 0.9',
    );
    expect(() => chi(profile, calibration, { R: 1.5, M: -0.5 })).toThrow(
      'weights.R: expected a weight in [0, 1], found 1.5',
    );
    expect(() => chi(profile, null, { X: 1 } as never)).toThrow('weights.X: unknown axis');
  });
});
