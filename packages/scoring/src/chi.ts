import {
  type AxisId,
  type AxisProfile,
  type ChiResult,
  type FeatureCalibration,
  type HumanCalibration,
  InvalidArgumentError,
} from '@chi/spec';
import { AxisIdSchema } from '@chi/spec/internal';
import {
  PRIMARY_TRANSFORM,
  type SimilarityTransform,
  similarityFromDistances,
} from './similarity-transform';

/** The five CHI axes in canonical order. */
export const AXIS_IDS: readonly AxisId[] = AxisIdSchema.options;

/** The baseline CHI weights: 1/5 for each of R, M, C, A and I. */
export const EQUAL_AXIS_WEIGHTS: Readonly<Record<AxisId, number>> = Object.freeze({
  R: 1 / 5,
  M: 1 / 5,
  C: 1 / 5,
  A: 1 / 5,
  I: 1 / 5,
});

/** Allowed distance of the weight sum from 1. */
export const WEIGHT_SUM_TOLERANCE = 1e-9;

/** The reason reported when CHI is null because no calibration was supplied. */
export const NO_CALIBRATION_REASON =
  'no human calibration supplied: CHI is undefined without one (no similarity is derived from task accuracy)';

/**
 * The human-similarity of one axis: h = exp(-0.5 * mean over the calibration's features l of
 * ((z_l - mu_l) / s_l)^2), in (0, 1] (it underflows to exactly 0 for extreme distances).
 *
 * The calibration defines the comparison: every feature it calibrates must be present in
 * `features`; measured features it does not calibrate are outside the comparison and ignored.
 *
 * @param field names the features in error messages, e.g. `profile.axes.R`.
 * @param transform the declared transform (default the article's Gaussian; see
 *   `similarityFromDistances` for the alternatives used in sensitivity analysis).
 * @throws InvalidArgumentError when the calibration has no features, a calibrated feature is
 *   absent from `features`, a value is not finite, or a scale s is not > 0.
 * @example
 * ```ts
 * axisSimilarity({ latency: 1.2 }, { latency: { mu: 1, s: 0.2 } }); // exp(-0.5) = 0.6065306597126334
 * ```
 */
export function axisSimilarity(
  features: Readonly<Record<string, number>>,
  calibration: Readonly<Record<string, FeatureCalibration>>,
  field = 'features',
  transform: SimilarityTransform = PRIMARY_TRANSFORM,
): number {
  const calibrationField = field.startsWith('profile.')
    ? field.replace(/^profile\./, 'calibration.')
    : 'calibration';
  if (typeof calibration !== 'object' || calibration === null) {
    throw new InvalidArgumentError(calibrationField, 'expected an object of feature calibrations');
  }
  if (typeof features !== 'object' || features === null) {
    throw new InvalidArgumentError(field, 'expected an object of feature values');
  }
  const names = Object.keys(calibration);
  if (names.length === 0) {
    throw new InvalidArgumentError(
      calibrationField,
      'the calibration has no features: similarity is undefined',
    );
  }
  const distances: number[] = [];
  for (const name of names) {
    const { mu, s } = calibration[name] as FeatureCalibration;
    if (!Number.isFinite(mu)) {
      throw new InvalidArgumentError(
        `${calibrationField}.${name}.mu`,
        `expected a finite mean, found ${String(mu)}`,
      );
    }
    if (!(Number.isFinite(s) && s > 0)) {
      throw new InvalidArgumentError(
        `${calibrationField}.${name}.s`,
        `the scale s must be a finite number > 0, found ${String(s)}`,
      );
    }
    if (!Object.hasOwn(features, name)) {
      throw new InvalidArgumentError(
        `${field}.${name}`,
        'the calibration has this feature but the profile does not: dropping it would change what CHI compares',
      );
    }
    const z = features[name];
    if (typeof z !== 'number' || !Number.isFinite(z)) {
      throw new InvalidArgumentError(
        `${field}.${name}`,
        `expected a finite feature value, found ${String(z)}`,
      );
    }
    distances.push((z - mu) / s);
  }
  return similarityFromDistances(distances, transform);
}

function checkWeights(weights: Readonly<Partial<Record<AxisId, number>>>): Record<AxisId, number> {
  if (typeof weights !== 'object' || weights === null) {
    throw new InvalidArgumentError('weights', 'expected an object of axis weights');
  }
  for (const key of Object.keys(weights)) {
    if (!(AXIS_IDS as readonly string[]).includes(key)) {
      throw new InvalidArgumentError(
        `weights.${key}`,
        `unknown axis; expected one of ${AXIS_IDS.join(', ')}`,
      );
    }
  }
  const full = { R: 0, M: 0, C: 0, A: 0, I: 0 };
  let sum = 0;
  for (const axis of AXIS_IDS) {
    const weight = weights[axis] ?? 0;
    if (!(typeof weight === 'number' && weight >= 0 && weight <= 1)) {
      throw new InvalidArgumentError(
        `weights.${axis}`,
        `expected a weight in [0, 1], found ${String(weight)}`,
      );
    }
    full[axis] = weight;
    sum += weight;
  }
  if (!(Math.abs(sum - 1) <= WEIGHT_SUM_TOLERANCE)) {
    throw new InvalidArgumentError(
      'weights',
      `the axis weights must sum to 1 (tolerance 1e-9), found ${sum}`,
    );
  }
  return full;
}

/**
 * CHI = 100 * prod over axes of h_j^w_j, with weights summing to 1 (default 1/5 over R, M, C, A,
 * I); null with the reason when `calibration` is null (never a number). The result echoes the
 * calibration ID and reports every computed h_j.
 *
 * An axis with positive weight is required: the calibration must calibrate it and the profile
 * must measure every feature the calibration has for it, otherwise an error names the axis or
 * feature (a silently dropped axis would change what CHI means). Axes with weight 0 are skipped.
 * An axis with h = 0 makes CHI exactly 0.
 *
 * @throws InvalidArgumentError for unusable weights, a required axis missing from the calibration
 *   or the profile, a missing calibrated feature, a non-finite value, or a scale s <= 0.
 * @example
 * ```ts
 * chi(profile, null).value; // null, reason: 'no human calibration supplied: ...'
 * chi(profile, calibration).value; // e.g. 71.3, calibrationId: calibration.id
 * ```
 */
export function chi(
  profile: AxisProfile,
  calibration: HumanCalibration | null,
  weights: Readonly<Partial<Record<AxisId, number>>> = EQUAL_AXIS_WEIGHTS,
  transform: SimilarityTransform = PRIMARY_TRANSFORM,
): ChiResult {
  const used = checkWeights(weights);
  if (calibration === null) {
    return {
      value: null,
      calibrationId: null,
      reason: NO_CALIBRATION_REASON,
      axisSimilarity: null,
      weights: used,
    };
  }
  if (
    typeof calibration !== 'object' ||
    typeof calibration.id !== 'string' ||
    calibration.id.length === 0
  ) {
    throw new InvalidArgumentError('calibration.id', 'expected a calibration with a non-empty ID');
  }
  if (
    typeof profile !== 'object' ||
    profile === null ||
    typeof profile.axes !== 'object' ||
    profile.axes === null
  ) {
    throw new InvalidArgumentError('profile.axes', 'expected a profile with an axes object');
  }
  const similarity: Partial<Record<AxisId, number>> = {};
  let logSum = 0;
  let zero = false;
  for (const axis of AXIS_IDS) {
    const weight = used[axis];
    if (weight === 0) continue;
    const calibrated = calibration.axes?.[axis];
    if (calibrated === undefined) {
      throw new InvalidArgumentError(
        `calibration.axes.${axis}`,
        `axis ${axis} has weight ${weight} but the calibration does not calibrate it: give it weight 0 or use a calibration that covers it`,
      );
    }
    const measured = profile.axes[axis];
    if (measured === undefined) {
      throw new InvalidArgumentError(
        `profile.axes.${axis}`,
        `axis ${axis} has weight ${weight} and a calibration, but the profile does not measure it`,
      );
    }
    const h = axisSimilarity(measured, calibrated, `profile.axes.${axis}`, transform);
    similarity[axis] = h;
    if (h === 0) zero = true;
    else logSum += weight * Math.log(h);
  }
  const value = zero ? 0 : Math.min(100, Math.max(0, 100 * Math.exp(logSum)));
  return {
    value,
    calibrationId: calibration.id,
    reason: null,
    axisSimilarity: similarity,
    weights: used,
  };
}
