import { InvalidArgumentError } from '@chi/spec';
import { quantileSorted } from 'simple-statistics';
import { assertFiniteValues, assertLevel, describeValue } from './validation.js';

/**
 * How a sample quantile is read off sorted values `x[0] <= ... <= x[n-1]` at probability `p`.
 *
 * - `'linear'` — Hyndman & Fan type 7, the default of R's `quantile()` and of numpy's
 *   `quantile(method='linear')`: with `h = (n - 1) * p`, the value is
 *   `x[floor(h)] + (h - floor(h)) * (x[floor(h) + 1] - x[floor(h)])`. Continuous; may return a
 *   value between two observed ones. Computed by simple-statistics' `quantileSorted` (type 7
 *   since 7.12; pinned, and checked against the formula by a property test).
 * - `'inverted_cdf'` — Hyndman & Fan type 1, R's `quantile(type = 1)`, numpy's
 *   `method='inverted_cdf'`: the smallest observed value whose empirical CDF is >= p, i.e.
 *   `x[max(ceil(n * p), 1) - 1]`. Always returns an observed value; use it for statistics that live
 *   on a grid (EIMC is a tested load N: interpolating between 64 and 128 would report an untested
 *   load). `n * p` within 1e-9 of an integer is snapped to that integer first, so that
 *   `(1 - 0.95) / 2 * 2000`, which is 50.00000000000004 in binary, selects the 50th value.
 */
export type QuantileDefinition = 'linear' | 'inverted_cdf';

/** Every accepted {@link QuantileDefinition}, for validation and documentation. */
export const QUANTILE_DEFINITIONS: readonly QuantileDefinition[] = ['linear', 'inverted_cdf'];

/** A two-sided percentile interval; `lower <= upper` always. */
export interface PercentileInterval {
  readonly lower: number;
  readonly upper: number;
}

/** Options of {@link percentileInterval}. */
export interface PercentileIntervalOptions {
  /** Central coverage, strictly between 0 and 1. Default 0.95. */
  readonly level?: number;
  /** Quantile definition. Default `'linear'` (type 7). */
  readonly quantile?: QuantileDefinition;
}

const SNAP_TOLERANCE = 1e-9;

/** Throws unless `definition` is one of {@link QUANTILE_DEFINITIONS}. */
export function assertQuantileDefinition(
  definition: unknown,
  field = 'quantile',
): asserts definition is QuantileDefinition {
  if (!QUANTILE_DEFINITIONS.includes(definition as QuantileDefinition)) {
    throw new InvalidArgumentError(
      field,
      `expected one of ${QUANTILE_DEFINITIONS.map((d) => `'${d}'`).join(', ')}, found ${describeValue(definition)}`,
    );
  }
}

/**
 * The `probability` quantile of values already sorted ascending, by the given definition.
 * Trusts its input (sorted, finite, non-empty, `0 <= probability <= 1`); use
 * {@link percentileInterval} for validated input.
 *
 * @example
 * ```ts
 * quantileOfSorted([1, 2, 3, 4], 0.25); // 1.75 (type 7, like R's quantile(1:4, 0.25))
 * quantileOfSorted([1, 2, 3, 4], 0.25, 'inverted_cdf'); // 1
 * ```
 */
export function quantileOfSorted(
  sorted: readonly number[],
  probability: number,
  definition: QuantileDefinition = 'linear',
): number {
  const n = sorted.length;
  if (definition === 'linear') {
    const position = (n - 1) * probability;
    const below = sorted[Math.floor(position)] as number;
    const above = sorted[Math.ceil(position)] as number;
    // Clamping to the bracketing order statistics holds in exact arithmetic; it stops a last-bit
    // rounding of `x0 + f * (x1 - x0)` from stepping past x1 and breaking monotonicity in p.
    return Math.min(Math.max(quantileSorted(sorted, probability), below), above);
  }
  return sorted[invertedCdfIndex(n, probability)] as number;
}

/** The index `'inverted_cdf'` reads among `n` sorted values at `probability`. */
function invertedCdfIndex(n: number, probability: number): number {
  const position = n * probability;
  const nearest = Math.round(position);
  const rank = Math.abs(position - nearest) <= SNAP_TOLERANCE ? nearest : Math.ceil(position);
  return Math.min(Math.max(rank, 1), n) - 1;
}

/**
 * The indices {@link quantileOfSorted} reads among `n` sorted values at `probability` (ascending;
 * one or two): the two order statistics `'linear'` interpolates between, or the one
 * `'inverted_cdf'` returns. A caller that places just these (order-statistics.ts) gets the same
 * quantile as from a full sort.
 */
export function quantileReadPositions(
  n: number,
  probability: number,
  definition: QuantileDefinition,
): number[] {
  if (definition === 'linear') {
    // simple-statistics' quantileSorted reads the same two indices of (n - 1) * p (or one of them).
    const position = (n - 1) * probability;
    return [Math.floor(position), Math.ceil(position)];
  }
  return [invertedCdfIndex(n, probability)];
}

/**
 * The pointwise percentile interval of `values` at central coverage `level`: the `(1 - level) / 2`
 * and `(1 + level) / 2` quantiles. NaN or infinite values throw (filter undefined replicates
 * before calling). The input is not modified.
 *
 * @example
 * ```ts
 * percentileInterval([1, 2, 3, 4, 5], { level: 0.5 }); // { lower: 2, upper: 4 }
 * ```
 */
export function percentileInterval(
  values: ArrayLike<number>,
  options: PercentileIntervalOptions = {},
): PercentileInterval {
  const { level = 0.95, quantile = 'linear' } = options;
  assertLevel(level);
  assertQuantileDefinition(quantile);
  if (values.length === 0) {
    throw new InvalidArgumentError('values', 'expected at least one value, found an empty list');
  }
  assertFiniteValues(values, 'values');
  // A Float64Array sorts numerically without a comparator, and fast.
  const sorted = Array.from(Float64Array.from(values).sort());
  return percentileIntervalOfSorted(sorted, level, quantile);
}

/** {@link percentileInterval} for values already sorted, finite and non-empty. */
export function percentileIntervalOfSorted(
  sorted: readonly number[],
  level: number,
  quantile: QuantileDefinition,
): PercentileInterval {
  return percentileIntervalAtTail(sorted, (1 - level) / 2, quantile);
}

/**
 * The `tail` and `1 - tail` quantiles of values already sorted, finite and non-empty: the
 * percentile interval when `tail = (1 - level) / 2`, wider for the expanded percentile interval.
 */
export function percentileIntervalAtTail(
  sorted: readonly number[],
  tail: number,
  quantile: QuantileDefinition,
): PercentileInterval {
  return {
    lower: quantileOfSorted(sorted, tail, quantile),
    upper: quantileOfSorted(sorted, 1 - tail, quantile),
  };
}
