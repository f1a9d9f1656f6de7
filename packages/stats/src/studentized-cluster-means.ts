import { InvalidArgumentError } from '@chi/spec';
import { drawResampleIndices } from './resample-draws.js';
import { assertLevel, assertResamples, assertSeed, describeValue } from './validation.js';

/**
 * The name of the studentized cluster bootstrap interval (bootstrap-t over clusters) of a mean
 * over clusters, as reports and `npm run coverage` spell it. A third method beside the
 * `IntervalMethod`s `'expanded_percentile'` and `'percentile'` of `clusterBootstrap`, which stay
 * selectable; this one applies to means over clusters only (see {@link studentizedClusterMeans}).
 */
export const STUDENTIZED_METHOD = 'studentized' as const;

/** The label of {@link STUDENTIZED_METHOD} in reports, in words. */
export const STUDENTIZED_METHOD_LABEL =
  'studentized cluster bootstrap (bootstrap-t over worlds, clipped to the range of the world values)';

/** Options of {@link studentizedClusterMeans}. */
export interface StudentizedClusterMeansOptions<K extends string> {
  /**
   * Per statistic, one value per cluster (world) in one cluster order shared by every statistic;
   * null where the statistic is undefined in that cluster (the cluster then stays out of that
   * statistic's mean, as the analysis does).
   */
  readonly values: Readonly<Record<K, readonly (number | null)[]>>;
  /** Analysis seed, an integer in [0, 2^32 - 1]: the same multisets as `clusterBootstrap`. */
  readonly seed: number;
  /** Number of bootstrap replicates, >= 1. Default 2000. */
  readonly resamples?: number;
  /** Central coverage of the pointwise interval, in (0, 1). Default 0.95. */
  readonly level?: number;
}

/** One statistic's studentized interval. */
export interface StudentizedEstimate {
  /** Mean over the clusters where the statistic is defined; null when it is defined in none. */
  readonly estimate: number | null;
  /** Null with fewer than two defined clusters (no standard error to studentize by). */
  readonly interval: { readonly lower: number; readonly upper: number } | null;
  /** Clusters where the statistic is defined. */
  readonly definedClusters: number;
  /** Replicates with at least one defined cluster (the others are left out). */
  readonly definedReplicates: number;
  readonly method: typeof STUDENTIZED_METHOD;
}

function meanAndStandardError(values: readonly number[]): { mean: number; se: number } {
  const n = values.length;
  let sum = 0;
  for (const value of values) sum += value;
  const mean = sum / n;
  if (n < 2) return { mean, se: 0 };
  let squares = 0;
  for (const value of values) squares += (value - mean) ** 2;
  return { mean, se: Math.sqrt(squares / (n - 1) / n) };
}

/**
 * Type-7 quantile of sorted t values that may hold infinities: between a finite and an infinite
 * neighbour the infinite one is taken (the conservative side), never NaN.
 */
function quantileWithInfinities(sorted: Float64Array, probability: number): number {
  const position = (sorted.length - 1) * probability;
  const below = Math.floor(position);
  const above = Math.ceil(position);
  const low = sorted[below] as number;
  const high = sorted[above] as number;
  if (below === above || low === high) return low;
  if (!Number.isFinite(low) || !Number.isFinite(high)) return Number.isFinite(low) ? high : low;
  return low + (position - below) * (high - low);
}

/** The t statistic of one replicate: its mean's distance from the estimate in its own SEs. */
function replicateT(sample: readonly number[], estimate: number): number {
  const { mean, se } = meanAndStandardError(sample);
  if (se > 0) return (mean - estimate) / se;
  // No spread in the replicate: its mean is as far from the estimate as any SE can make it.
  if (Math.abs(mean - estimate) <= 1e-12) return 0;
  return mean > estimate ? Number.POSITIVE_INFINITY : Number.NEGATIVE_INFINITY;
}

function checkValues(values: unknown): [string, readonly (number | null)[]][] {
  if (typeof values !== 'object' || values === null || Array.isArray(values)) {
    throw new InvalidArgumentError(
      'values',
      `expected a record of per-cluster value lists, found ${describeValue(values)}`,
    );
  }
  const entries = Object.entries(values as Record<string, unknown>);
  if (entries.length === 0)
    throw new InvalidArgumentError('values', 'expected at least one statistic');
  const clusters = (entries[0]?.[1] as unknown[] | undefined)?.length;
  for (const [name, list] of entries) {
    if (!Array.isArray(list) || list.length === 0 || list.length !== clusters) {
      throw new InvalidArgumentError(
        `values.${name}`,
        `expected ${clusters ?? 'one or more'} per-cluster values (one per cluster, null where undefined), found ${describeValue(list)}`,
      );
    }
    for (const value of list) {
      if (value !== null && (typeof value !== 'number' || !Number.isFinite(value))) {
        throw new InvalidArgumentError(
          `values.${name}`,
          `expected finite numbers or null, found ${describeValue(value)}`,
        );
      }
    }
  }
  return entries as [string, readonly (number | null)[]][];
}

/**
 * Studentized cluster bootstrap (bootstrap-t) intervals of means over clusters: for each
 * statistic, the mean over the clusters where it is defined, and the interval
 * `[mean - t*_{1 - a} se, mean - t*_{a} se]`, a = (1 - level) / 2, where se is the standard error
 * of the mean over the defined clusters and t*_q the q quantile of the replicates'
 * `(mean* - mean) / se*`, each replicate's mean and SE over its own defined clusters. A replicate
 * without spread gets t = ±infinity (0 when its mean is the estimate), so the interval widens
 * where the data are too few to estimate a spread. The interval is then clipped to the range of
 * the defined cluster values, where every mean of them lies.
 *
 * Why (docs/coverage.md): with 8 worlds whose values are rates over a few probe coordinates, the
 * percentile and expanded percentile intervals undercover when few coordinates flip (the
 * interval of a mean of skewed, discrete values); studentizing by each replicate's own SE
 * corrects for the skew and for the count of defined clusters (a statistic defined in 2 of 8
 * worlds is studentized by 2, not by 8).
 *
 * Replicate `r` draws exactly the multiset `clusterBootstrap` draws for the same seed and cluster
 * count (`drawResampleIndices`). Deterministic: same values and seed, same result.
 *
 * Reference: B. Efron and R. J. Tibshirani, An Introduction to the Bootstrap (1993), chapter 12;
 * A. C. Davison and D. V. Hinkley, Bootstrap Methods and their Application (1997), section 5.2.
 *
 * @throws InvalidArgumentError naming the field on values that are not per-cluster lists of one
 * length, non-finite values, resamples < 1, a level outside (0, 1) or an invalid seed.
 *
 * @example
 * ```ts
 * const result = studentizedClusterMeans({
 *   values: { excess: [0.75, 1, 0.5, 1, 0.75, 1, 1, 0.875] },
 *   seed: 20260901,
 * });
 * result.excess.interval; // { lower, upper }, pointwise 95%
 * ```
 */
export function studentizedClusterMeans<K extends string>(
  options: StudentizedClusterMeansOptions<K>,
): Readonly<Record<K, StudentizedEstimate>> {
  const { seed, resamples = 2000, level = 0.95 } = options;
  const entries = checkValues(options.values);
  assertResamples(resamples);
  assertSeed(seed);
  assertLevel(level);
  const clusterCount = entries[0]?.[1].length as number;
  const draws = drawResampleIndices({ clusterCount, resamples, seed });
  const tail = (1 - level) / 2;
  return Object.fromEntries(
    entries.map(([name, values]) => [name, studentize(values, draws, resamples, tail)]),
  ) as Record<K, StudentizedEstimate>;
}

function studentize(
  values: readonly (number | null)[],
  draws: Uint32Array,
  resamples: number,
  tail: number,
): StudentizedEstimate {
  const defined = values.filter((value): value is number => value !== null);
  const base = { definedClusters: defined.length, method: STUDENTIZED_METHOD };
  if (defined.length === 0) {
    return { ...base, estimate: null, interval: null, definedReplicates: 0 };
  }
  const { mean, se } = meanAndStandardError(defined);
  if (defined.length < 2) return { ...base, estimate: mean, interval: null, definedReplicates: 0 };
  const clusterCount = values.length;
  const ts: number[] = [];
  const sample: number[] = [];
  for (let replicate = 0; replicate < resamples; replicate++) {
    sample.length = 0;
    for (let slot = replicate * clusterCount; slot < (replicate + 1) * clusterCount; slot++) {
      const value = values[draws[slot] as number];
      if (value !== null && value !== undefined) sample.push(value);
    }
    if (sample.length > 0) ts.push(replicateT(sample, mean));
  }
  if (se === 0 || ts.length === 0) {
    return {
      ...base,
      estimate: mean,
      interval: { lower: mean, upper: mean },
      definedReplicates: ts.length,
    };
  }
  const sorted = Float64Array.from(ts).sort();
  const low = Math.min(...defined);
  const high = Math.max(...defined);
  const clip = (x: number) => Math.min(high, Math.max(low, x));
  return {
    ...base,
    estimate: mean,
    interval: {
      lower: clip(mean - quantileWithInfinities(sorted, 1 - tail) * se),
      upper: clip(mean - quantileWithInfinities(sorted, tail) * se),
    },
    definedReplicates: ts.length,
  };
}
