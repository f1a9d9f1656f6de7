import type { AxisId, FeatureCalibration } from '@chi/spec';
import type { CalibrationParticipant } from '@chi/spec/internal';
import { AXIS_IDS } from './chi';

/** mu and s of every feature, per axis. */
export type CalibrationAxes = Partial<Record<AxisId, Record<string, FeatureCalibration>>>;

/** A feature whose values do not vary across the sample: its scale would be 0. */
export interface ZeroSpreadFeature {
  readonly axis: AxisId;
  readonly feature: string;
  readonly value: number;
}

/** What `estimateCalibrationAxes` found. */
export interface CalibrationEstimate {
  /** mu and s of every feature with s > 0. */
  readonly axes: CalibrationAxes;
  /** Features left out of `axes` because every participant has the same value. */
  readonly zeroSpread: readonly ZeroSpreadFeature[];
}

/**
 * The calibration estimator: per feature, mu = the sample mean and s = the sample standard
 * deviation with n - 1 over the participants given (duplicates count, so a bootstrap resample can
 * be passed as is). Features come from the first participant; every participant must have them.
 *
 * Why the standard deviation: h = exp(-0.5 * mean d^2) is a Gaussian kernel in standardized
 * units, so with s = SD a participant one SD from the mean on every feature gets h = e^-0.5. A
 * MAD-based scale is robust to outliers but is 0 whenever more than half the participants share a
 * value, which is common for accuracies over a handful of items.
 *
 * @example
 * ```ts
 * estimateCalibrationAxes([a, b, c]).axes.M?.recall; // { mu: 0.6, s: 0.1 }
 * ```
 */
export function estimateCalibrationAxes(
  participants: readonly CalibrationParticipant[],
): CalibrationEstimate {
  const first = participants[0];
  const axes: CalibrationAxes = {};
  const zeroSpread: ZeroSpreadFeature[] = [];
  if (first === undefined || participants.length < 2) return { axes, zeroSpread };
  const n = participants.length;
  for (const axis of AXIS_IDS) {
    const names = Object.keys(first.features[axis] ?? {}).sort();
    for (const feature of names) {
      const values = participants.map((p) => p.features[axis]?.[feature] as number);
      const mu = values.reduce((sum, v) => sum + v, 0) / n;
      const sumSquares = values.reduce((sum, v) => sum + (v - mu) * (v - mu), 0);
      const s = Math.sqrt(sumSquares / (n - 1));
      if (!(s > 0) || values.every((v) => v === values[0])) {
        zeroSpread.push({ axis, feature, value: values[0] as number });
        continue;
      }
      const axisCalibration = axes[axis] ?? {};
      axisCalibration[feature] = { mu, s };
      axes[axis] = axisCalibration;
    }
  }
  return { axes, zeroSpread };
}
