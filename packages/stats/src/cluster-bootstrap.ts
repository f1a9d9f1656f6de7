import { InvalidArgumentError } from '@chi/spec';
import {
  type BootstrapEstimate,
  type BootstrapEstimates,
  estimateWithoutResampling,
  type QuantileChoice,
  type RunFacts,
  resolveQuantiles,
  runFacts,
  summarizeReplicates,
} from './bootstrap-estimate.js';
import { assertIntervalMethod, type IntervalMethod } from './interval-method.js';
import type { QuantileDefinition } from './quantile.js';
import { ClusterDrawStream } from './resample-draws.js';
import {
  assertFunction,
  assertLevel,
  assertResamples,
  assertSeed,
  describeValue,
} from './validation.js';

/**
 * Bootstrap defaults: the protocol's 2000 resamples, pointwise 95% intervals, type-7 quantiles,
 * read by the expanded percentile method (see {@link IntervalMethod}).
 */
export const BOOTSTRAP_DEFAULTS = {
  resamples: 2000,
  level: 0.95,
  quantile: 'linear',
  method: 'expanded_percentile',
} as const;

/** Named statistics: every value a finite number, or null where the statistic is undefined. */
export type NamedStatistics<K extends string = string> = { readonly [P in K]: number | null };

/** What a bootstrap statistic may return: one value, or a record of named values. */
export type StatisticOutput = number | null | NamedStatistics;

/** Options of {@link clusterBootstrap}. */
export interface ClusterBootstrapOptions<C, R extends StatisticOutput> {
  /** The independent resampling units (worlds), each holding all of its paired observations. */
  readonly clusters: readonly C[];
  /**
   * Computes the statistic from a sample of clusters: first the original `clusters`, then each
   * replicate's multiset (`clusters.length` clusters drawn with replacement, in draw order).
   * Recompute every nonlinear aggregate here. Return null for an undefined value (counted in
   * `undefinedReplicates`); NaN and infinities throw. A record must have the same names every call.
   */
  readonly statistic: (sample: readonly C[]) => R;
  /** Analysis seed, an integer in [0, 2^32 - 1]. Same seed and data, same result. */
  readonly seed: number;
  /** Number of bootstrap replicates, >= 1. Default 2000. */
  readonly resamples?: number;
  /** Central coverage of the pointwise interval, in (0, 1). Default 0.95. */
  readonly level?: number;
  /**
   * How the interval is read from the replicates. Default `'expanded_percentile'`, which holds
   * its level at a few clusters; `'percentile'` is the plain percentile interval.
   */
  readonly method?: IntervalMethod;
  /** Quantile definition, for all statistics or by name. Default `'linear'` (type 7). */
  readonly quantile?: R extends NamedStatistics<infer K> ? QuantileChoice<K> : QuantileDefinition;
}

const SCALAR = Symbol('scalar');
type Shape = typeof SCALAR | readonly string[];

/** Names a call in messages; built only when something is wrong. -1 is the original sample. */
function describeCall(replicate: number): string {
  return replicate < 0 ? 'the original sample' : `replicate ${replicate}`;
}

function readValue(value: unknown, name: string | null, replicate: number): number {
  if (value === null) return Number.NaN;
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  const what = name === null ? 'the statistic' : `statistic ${JSON.stringify(name)}`;
  throw new InvalidArgumentError(
    'statistic',
    `${what} returned ${describeValue(value)} on ${describeCall(replicate)}; expected a finite number, or null for an undefined value`,
  );
}

function shapeOf(output: unknown): Shape {
  if (output === null || typeof output === 'number') return SCALAR;
  if (typeof output === 'object' && !Array.isArray(output)) {
    const names = Object.keys(output);
    if (names.length > 0) return names;
  }
  throw new InvalidArgumentError(
    'statistic',
    `returned ${describeValue(output)} on the original sample; expected a number, null, or a non-empty record of named numbers`,
  );
}

/**
 * Writes one call's output into each name's column, checking the shape. `replicate` is the slot
 * (and, for messages, -1 for the original sample, which is written to slot 0).
 */
function record(
  output: unknown,
  shape: Shape,
  columns: readonly Float64Array[],
  replicate: number,
): void {
  const slot = Math.max(replicate, 0);
  if (shape === SCALAR) {
    if (output !== null && typeof output !== 'number') {
      throw new InvalidArgumentError(
        'statistic',
        `returned ${describeValue(output)} on ${describeCall(replicate)} but a number on the original sample; return the same shape every time`,
      );
    }
    (columns[0] as Float64Array)[slot] = readValue(output, null, replicate);
    return;
  }
  if (typeof output !== 'object' || output === null || Array.isArray(output)) {
    throw new InvalidArgumentError(
      'statistic',
      `returned ${describeValue(output)} on ${describeCall(replicate)} but a record on the original sample; return the same shape every time`,
    );
  }
  const values = output as Readonly<Record<string, unknown>>;
  const names = Object.keys(values);
  if (names.length !== shape.length || !shape.every((name) => Object.hasOwn(values, name))) {
    throw new InvalidArgumentError(
      'statistic',
      `returned names [${names.join(', ')}] on ${describeCall(replicate)} but [${shape.join(', ')}] on the original sample; return every name every time (null for undefined)`,
    );
  }
  shape.forEach((name, index) => {
    (columns[index] as Float64Array)[slot] = readValue(values[name], name, replicate);
  });
}

/**
 * Clustered (block) bootstrap that preserves pairing by construction.
 *
 * Each replicate draws `clusters.length` clusters with replacement (one multiset of worlds) and
 * hands that whole multiset to `statistic`, which recomputes every aggregate over every model,
 * load, history and checkpoint at once: whatever was paired inside a world stays paired.
 *
 * Returns the point estimate on the original sample and the pointwise interval over the
 * replicates where the statistic was defined (expanded percentile by default, plain percentile
 * with `method: 'percentile'`), with the counts of defined and undefined
 * replicates, the cluster count and the seed. With fewer than two clusters no resampling is done
 * and no interval is given (`intervalOmittedReason: 'fewer_than_two_clusters'`).
 *
 * Randomness: see `drawResampleIndices`; replicate `r` uses exactly its draws, so the result is
 * identical, bit for bit, for the same seed, data and statistic, and identical multisets are drawn
 * by {@link weightedMeansBootstrap}.
 *
 * @throws InvalidArgumentError on no clusters, resamples < 1, level outside (0, 1), a seed that is
 * not an integer in [0, 2^32 - 1], or a statistic returning NaN, infinities or changing shape.
 *
 * @example
 * ```ts
 * const worlds = [{ r: 1, t: 0.75 }, { r: 0.5, t: 0.5 }, { r: 0.75, t: 1 }];
 * const result = clusterBootstrap({
 *   clusters: worlds,
 *   seed: 20260901,
 *   statistic: (sample) => ({
 *     meanR: meanOverClusters(sample, (w) => w.r),
 *     gap: meanOverClusters(sample, (w) => w.r - w.t),
 *   }),
 * });
 * result.meanR.estimate; // 0.75
 * result.meanR.interval; // { lower, upper }, pointwise 95%
 * ```
 */
export function clusterBootstrap<C>(
  options: ClusterBootstrapOptions<C, number | null>,
): BootstrapEstimate;
export function clusterBootstrap<C, K extends string>(
  options: ClusterBootstrapOptions<C, NamedStatistics<K>>,
): BootstrapEstimates<K>;
export function clusterBootstrap<C>(
  options: ClusterBootstrapOptions<C, StatisticOutput>,
): BootstrapEstimate | BootstrapEstimates {
  const {
    clusters,
    statistic,
    seed,
    resamples = BOOTSTRAP_DEFAULTS.resamples,
    level = BOOTSTRAP_DEFAULTS.level,
    method = BOOTSTRAP_DEFAULTS.method,
  } = options;
  if (!Array.isArray(clusters) || clusters.length === 0) {
    throw new InvalidArgumentError(
      'clusters',
      `expected at least one cluster (world), found ${Array.isArray(clusters) ? 'an empty list' : describeValue(clusters)}`,
    );
  }
  assertFunction(statistic, 'statistic');
  assertResamples(resamples);
  assertSeed(seed);
  assertLevel(level);
  assertIntervalMethod(method);

  const pointOutput: unknown = statistic(clusters);
  const shape = shapeOf(pointOutput);
  const names = shape === SCALAR ? ['value'] : shape;
  if (shape === SCALAR && typeof options.quantile === 'object' && options.quantile !== null) {
    throw new InvalidArgumentError(
      'quantile',
      'a single-valued statistic takes one quantile definition, not a record by name',
    );
  }
  const quantiles = resolveQuantiles(options.quantile as QuantileChoice | undefined, names);
  const pointColumns = names.map(() => new Float64Array(1));
  record(pointOutput, shape, pointColumns, -1);
  const point = pointColumns.map((column) => {
    const value = column[0] as number;
    return Number.isNaN(value) ? null : value;
  });

  const run: RunFacts = runFacts(level, method, clusters.length, seed);
  let estimates: BootstrapEstimate[];
  if (clusters.length < 2) {
    estimates = names.map((_, i) =>
      estimateWithoutResampling(point[i] ?? null, quantiles[i]!, run),
    );
  } else {
    const columns = names.map(() => new Float64Array(resamples));
    // The same draws as `drawClusterIndex` over `createResampleGenerator(seed)`, inlined.
    const stream = new ClusterDrawStream(seed, clusters.length);
    const clusterCount = clusters.length;
    const drawn = new Uint32Array(clusterCount);
    for (let replicate = 0; replicate < resamples; replicate++) {
      stream.fill(drawn);
      const sample = new Array<C>(clusterCount);
      for (let slot = 0; slot < clusterCount; slot++) {
        sample[slot] = clusters[drawn[slot] as number] as C;
      }
      record(statistic(sample), shape, columns, replicate);
    }
    const scratch = new Float64Array(resamples);
    estimates = names.map((_, i) =>
      summarizeReplicates(point[i] ?? null, columns[i]!, quantiles[i]!, run, scratch),
    );
  }

  if (shape === SCALAR) return estimates[0]!;
  // fromEntries defines own properties, so even a statistic named "__proto__" survives.
  return Object.fromEntries(names.map((name, i) => [name, estimates[i]!]));
}
