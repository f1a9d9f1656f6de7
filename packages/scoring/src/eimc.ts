import { type CapacityCurve, type EimcResult, InvalidArgumentError } from '@chi/spec';
import { isList } from './guards';

/** The default EIMC threshold. */
export const DEFAULT_TAU = 0.8;
/** The thresholds reported for sensitivity. */
export const SENSITIVITY_TAUS: readonly number[] = Object.freeze([0.7, 0.8, 0.9]);

function checkTau(tau: number, field = 'tau'): void {
  if (!(typeof tau === 'number' && tau >= 0 && tau <= 1)) {
    throw new InvalidArgumentError(field, `expected a threshold in [0, 1], found ${String(tau)}`);
  }
}

/**
 * EIMC_tau from parallel arrays: the allocation-free kernel for bootstrap loops. Returns the
 * largest tested load whose score is >= tau, or null when none passes (never 0). Status follows:
 * null is `no_passing_load`, the last load is `lower_bound`, anything else `capacity`.
 *
 * @throws InvalidArgumentError when the lengths differ, the grid is empty, loads are not strictly
 *   increasing positive numbers, a score is outside [0, 1] or NaN, or tau is outside [0, 1].
 * @example
 * ```ts
 * eimcFromScores([32, 64, 128, 256], [0.95, 0.85, 0.7, 0.82], 0.8); // 256 (nonmonotone)
 * ```
 */
export function eimcFromScores(
  loads: ArrayLike<number>,
  scores: ArrayLike<number>,
  tau: number,
): number | null {
  checkTau(tau);
  if (loads.length !== scores.length) {
    throw new InvalidArgumentError(
      'scores',
      `expected one score per load (${loads.length}), found ${scores.length}`,
    );
  }
  if (loads.length === 0)
    throw new InvalidArgumentError('loads', 'expected at least one tested load, found none');
  let best: number | null = null;
  let previous = 0;
  for (let k = 0; k < loads.length; k++) {
    const load = loads[k] as number;
    const score = scores[k] as number;
    if (!(load > previous) || !Number.isFinite(load)) {
      throw new InvalidArgumentError(
        `loads[${k}]`,
        `loads must be positive and strictly increasing, found ${load} after ${previous}`,
      );
    }
    if (!(score >= 0 && score <= 1)) {
      throw new InvalidArgumentError(`scores[${k}]`, `expected a Q_M in [0, 1], found ${score}`);
    }
    previous = load;
    if (score >= tau) best = load;
  }
  return best;
}

/**
 * EIMC_tau over a finite grid: the largest tested load with Q_M >= tau (no tolerance, no
 * interpolation, no extrapolation).
 *
 * - `status: 'capacity'` when a passing load is below the largest tested load;
 * - `status: 'lower_bound'` when the largest tested load passes (right-censored);
 * - `status: 'no_passing_load'` with `value: null` (never 0) when nothing passes.
 *
 * `nonmonotone` is true when a failing load lies below a passing one; `sustainedPrefix` is the
 * largest load such that it and every smaller tested load pass (null when the smallest fails).
 *
 * @throws InvalidArgumentError when the curve is empty, its loads are not strictly increasing, or
 *   tau is outside [0, 1].
 * @example
 * ```ts
 * const result = eimc(curve, 0.8);
 * if (result.status === 'lower_bound') console.log(`EIMC >= ${result.value}`);
 * ```
 */
export function eimc(curve: CapacityCurve, tau: number = DEFAULT_TAU): EimcResult {
  checkTau(tau);
  if (!isList(curve) || curve.length === 0) {
    throw new InvalidArgumentError('curve', 'expected at least one tested load, found none');
  }
  const testedLoads = curve.map((point) => point.load);
  const scores = curve.map((point) => point.qualityScore);
  const value = eimcFromScores(testedLoads, scores, tau);
  const passing = curve.map((point) => point.qualityScore >= tau);
  const passingLoads = testedLoads.filter((_, k) => passing[k]);
  const firstFail = passing.indexOf(false);
  const lastPass = passing.lastIndexOf(true);
  const nonmonotone = firstFail !== -1 && lastPass > firstFail;
  const prefixEnd = firstFail === -1 ? curve.length - 1 : firstFail - 1;
  const sustainedPrefix = prefixEnd >= 0 ? (testedLoads[prefixEnd] ?? null) : null;
  const largest = testedLoads[testedLoads.length - 1];
  const status =
    value === null ? 'no_passing_load' : value === largest ? 'lower_bound' : 'capacity';
  return { tau, value, status, testedLoads, passingLoads, nonmonotone, sustainedPrefix };
}

/**
 * EIMC at several thresholds (default 0.7, 0.8 and 0.9), in the order given.
 *
 * @example
 * ```ts
 * eimcSensitivity(curve).map((result) => [result.tau, result.value, result.status]);
 * ```
 */
export function eimcSensitivity(
  curve: CapacityCurve,
  taus: readonly number[] = SENSITIVITY_TAUS,
): EimcResult[] {
  if (!isList(taus) || taus.length === 0) {
    throw new InvalidArgumentError('taus', 'expected at least one threshold, found none');
  }
  taus.forEach((tau, index) => {
    checkTau(tau, `taus[${index}]`);
  });
  return taus.map((tau) => eimc(curve, tau));
}
