import { type ChisEntry, InvalidArgumentError } from '@chi/spec';
import { type DynamicResult, usedRefs } from './dynamic-result';
import { type ChisResponse, responseCoordinates } from './response-distance';
import { describeEntry, orderTrajectory } from './trajectories';

/** Options of {@link stability}. */
export interface StabilityOptions {
  /**
   * What varies (default the decision vector). Name one feature, e.g.
   * `{ profileFeatures: ['accuracy'] }`, for the SD of that feature.
   */
  readonly response?: ChisResponse;
  /** Conditions that count as neutral (default `['neutral']`). */
  readonly neutralConditions?: readonly string[];
}

/** Stability (a standard deviation: lower is steadier), with its per-coordinate parts. */
export interface StabilityResult extends DynamicResult {
  /** Number of neutral entries the SDs are computed over. */
  readonly neutralEntries: number;
  /** Sample SD (n - 1 denominator) of each coordinate across the neutral entries. */
  readonly coordinateSds: readonly number[] | null;
  /** Mean over coordinates of the mean absolute deviation from the coordinate's mean. */
  readonly meanAbsoluteDeviation: number | null;
}

/**
 * Stability: variability across neutral checkpoints. For each coordinate of the response (each
 * decision coordinate, or each named profile feature), the sample standard deviation (n - 1
 * denominator) across all neutral entries; the value is the mean of these SDs. With one named
 * feature it is simply that feature's SD. Lower means steadier; 0 means identical responses.
 *
 * Null with fewer than two neutral entries, or when any neutral entry lacks the response or has an
 * invalid coordinate.
 *
 * It measures variability, not correctness and not noise alone: a steady trend inflates it, and a
 * system that keeps repeating an error is perfectly stable.
 *
 * @example
 * ```ts
 * stability(entries, { response: { profileFeatures: ['accuracy'] } }).value; // SD of accuracy
 * ```
 */
export function stability(
  entries: readonly ChisEntry[],
  options: StabilityOptions = {},
): StabilityResult {
  const ordered = orderTrajectory(entries, 'entries');
  const response = options.response ?? 'decisionVector';
  const neutralConditions = new Set(options.neutralConditions ?? ['neutral']);
  const neutral = ordered.filter((entry) => neutralConditions.has(entry.condition));
  const used = usedRefs(ordered, new Set(neutral));
  const base = {
    used,
    neutralEntries: neutral.length,
    coordinateSds: null,
    meanAbsoluteDeviation: null,
  };
  if (neutral.length < 2) {
    return {
      value: null,
      reason: `needs at least two neutral entries, found ${neutral.length}`,
      ...base,
    };
  }
  const columns: number[][] = [];
  for (const entry of neutral) {
    const observed = responseCoordinates(entry, response);
    if (observed.reason !== null) return { value: null, reason: observed.reason, ...base };
    const width = observed.coordinates.length;
    if (entry === neutral[0]) {
      if (width === 0)
        throw new InvalidArgumentError('entries', `${describeEntry(entry)} has an empty response`);
      for (let j = 0; j < width; j++) columns.push([]);
    } else if (width !== columns.length) {
      throw new InvalidArgumentError(
        'entries',
        `${describeEntry(entry)} has ${width} coordinates but ${describeEntry(neutral[0]!)} has ${columns.length}`,
      );
    }
    for (let j = 0; j < columns.length; j++) {
      const x = observed.coordinates[j];
      if (x === null || x === undefined) {
        return {
          value: null,
          reason: `${observed.labels[j]} of ${describeEntry(entry)} is invalid (null)`,
          ...base,
        };
      }
      columns[j]!.push(x);
    }
  }
  const n = neutral.length;
  const coordinateSds: number[] = [];
  let deviationSum = 0;
  for (const column of columns) {
    const mean = column.reduce((sum, x) => sum + x, 0) / n;
    coordinateSds.push(Math.sqrt(column.reduce((sum, x) => sum + (x - mean) ** 2, 0) / (n - 1)));
    deviationSum += column.reduce((sum, x) => sum + Math.abs(x - mean), 0) / n;
  }
  return {
    value: coordinateSds.reduce((sum, sd) => sum + sd, 0) / coordinateSds.length,
    reason: null,
    ...base,
    coordinateSds,
    meanAbsoluteDeviation: deviationSum / columns.length,
  };
}
