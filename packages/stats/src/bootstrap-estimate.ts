import { InvalidArgumentError } from '@chi/spec';
import { type IntervalMethod, intervalTailProbability } from './interval-method.js';
import { placeOrderStatistics } from './order-statistics.js';
import {
  assertQuantileDefinition,
  type PercentileInterval,
  percentileIntervalAtTail,
  type QuantileDefinition,
  quantileReadPositions,
} from './quantile.js';
import { describeValue } from './validation.js';

/** Why a {@link BootstrapEstimate} has no interval. */
export type IntervalOmittedReason =
  /** Fewer than two clusters: resampling one world says nothing about world-to-world spread. */
  | 'fewer_than_two_clusters'
  /** The statistic was undefined (null / NaN) in every replicate. */
  | 'no_defined_replicates';

/** Fields every {@link BootstrapEstimate} has, with or without an interval. */
export interface BootstrapEstimateFields {
  /** The statistic on the original sample (every cluster once); null when undefined there. */
  readonly estimate: number | null;
  /** Central coverage of the interval, e.g. 0.95. */
  readonly level: number;
  /** Quantile definition used for the interval endpoints. */
  readonly quantile: QuantileDefinition;
  /** How the interval was read from the replicates (see {@link IntervalMethod}). */
  readonly method: IntervalMethod;
  /** Replicates drawn: the requested count, or 0 when resampling was skipped. */
  readonly resamples: number;
  /** Replicates in which the statistic was defined; the interval is computed from these only. */
  readonly definedReplicates: number;
  /** Replicates in which the statistic was undefined (null, or NaN on the fast path). */
  readonly undefinedReplicates: number;
  /** Clusters (worlds) in the original sample; each replicate draws this many. */
  readonly clusters: number;
  /** The analysis seed the replicates were drawn from. */
  readonly seed: number;
}

/**
 * One bootstrapped statistic: its point estimate, its pointwise interval (read by `method`) over
 * the defined replicates, and the denominators needed to read it. Either `interval` is present and
 * `intervalOmittedReason` is null, or the other way round. Plain data: `JSON.stringify` it as is.
 */
export type BootstrapEstimate = BootstrapEstimateFields &
  (
    | { readonly interval: PercentileInterval; readonly intervalOmittedReason: null }
    | { readonly interval: null; readonly intervalOmittedReason: IntervalOmittedReason }
  );

/** Bootstrapped statistics by name, in the order the statistic produced them. */
export type BootstrapEstimates<K extends string = string> = {
  readonly [P in K]: BootstrapEstimate;
};

/**
 * The quantile definition for every statistic, or per statistic name (unlisted names use
 * `'linear'`). Use `'inverted_cdf'` for grid-valued statistics such as EIMC.
 */
export type QuantileChoice<K extends string = string> =
  | QuantileDefinition
  | { readonly [P in K]?: QuantileDefinition };

/** Resolves a {@link QuantileChoice} into one definition per name, rejecting unknown names. */
export function resolveQuantiles(
  choice: QuantileChoice | undefined,
  names: readonly string[],
): QuantileDefinition[] {
  if (choice === undefined) return names.map(() => 'linear');
  if (typeof choice === 'string' || typeof choice !== 'object' || choice === null) {
    assertQuantileDefinition(choice, 'quantile');
    return names.map(() => choice);
  }
  const byName = choice as Readonly<Record<string, unknown>>;
  for (const name of Object.keys(byName)) {
    if (!names.includes(name)) {
      throw new InvalidArgumentError(
        `quantile.${name}`,
        `names no statistic; the statistic returns ${names.map((n) => JSON.stringify(n)).join(', ')}`,
      );
    }
  }
  return names.map((name) => {
    const definition = Object.hasOwn(byName, name) ? byName[name] : 'linear';
    assertQuantileDefinition(definition, `quantile.${name}`);
    return definition;
  });
}

/** What every estimate of one bootstrap run shares. */
export interface RunFacts {
  readonly level: number;
  readonly method: IntervalMethod;
  readonly clusters: number;
  readonly seed: number;
  /**
   * `intervalTailProbability(method, level, clusters)`, when the caller computed it once for all
   * statistics of the run; computed per call otherwise.
   */
  readonly tail?: number;
}

/** The {@link RunFacts} of a run, with its interval's tail probability computed once. */
export function runFacts(
  level: number,
  method: IntervalMethod,
  clusters: number,
  seed: number,
): RunFacts {
  return { level, method, clusters, seed, tail: intervalTailProbability(method, level, clusters) };
}

/**
 * Summarises one statistic's replicates (NaN marks an undefined replicate); `replicates` is left
 * as it was. The interval is read from the order statistics it needs, placed by selection in a
 * copy of the defined replicates (`scratch`, when given, is that copy's storage: at least
 * `replicates.length` long), not from a full sort: the same numbers, since a quantile reads only
 * those positions (a property test holds the two together).
 */
export function summarizeReplicates(
  estimate: number | null,
  replicates: Float64Array,
  quantile: QuantileDefinition,
  run: RunFacts,
  scratch: Float64Array = new Float64Array(replicates.length),
): BootstrapEstimate {
  let defined = 0;
  let negativeZero = false;
  for (let index = 0; index < replicates.length; index++) {
    const value = replicates[index] as number;
    if (Number.isNaN(value)) continue;
    if (value === 0 && 1 / value < 0) negativeZero = true;
    scratch[defined++] = value;
  }
  const fields = {
    estimate,
    level: run.level,
    quantile,
    method: run.method,
    resamples: replicates.length,
    definedReplicates: defined,
    undefinedReplicates: replicates.length - defined,
    clusters: run.clusters,
    seed: run.seed,
  };
  if (defined === 0) {
    return { ...fields, interval: null, intervalOmittedReason: 'no_defined_replicates' };
  }
  const tail = run.tail ?? intervalTailProbability(run.method, run.level, run.clusters);
  const values = scratch.subarray(0, defined);
  if (negativeZero) {
    // Selection does not tell -0 from +0; the sort puts -0 first, as the interval always did.
    values.sort();
  } else {
    const positions = [
      ...quantileReadPositions(defined, tail, quantile),
      ...quantileReadPositions(defined, 1 - tail, quantile),
    ];
    placeOrderStatistics(values, defined, positions);
  }
  // Only the placed positions are read (quantileOfSorted indexes and takes the length).
  const interval = percentileIntervalAtTail(values as unknown as number[], tail, quantile);
  return { ...fields, interval, intervalOmittedReason: null };
}

/** The estimate when resampling is skipped because there are fewer than two clusters. */
export function estimateWithoutResampling(
  estimate: number | null,
  quantile: QuantileDefinition,
  run: RunFacts,
): BootstrapEstimate {
  return {
    estimate,
    level: run.level,
    quantile,
    method: run.method,
    resamples: 0,
    definedReplicates: 0,
    undefinedReplicates: 0,
    clusters: run.clusters,
    seed: run.seed,
    interval: null,
    intervalOmittedReason: 'fewer_than_two_clusters',
  };
}

/** Throws unless `names` is a non-empty list of distinct strings. */
export function assertStatisticNames(names: unknown, field: string): asserts names is string[] {
  if (!Array.isArray(names) || names.length === 0) {
    throw new InvalidArgumentError(
      field,
      `expected a non-empty list of statistic names, found ${describeValue(names)}`,
    );
  }
  const seen = new Set<string>();
  names.forEach((name: unknown, index) => {
    if (typeof name !== 'string') {
      throw new InvalidArgumentError(
        `${field}[${index}]`,
        `expected a string, found ${describeValue(name)}`,
      );
    }
    if (seen.has(name)) {
      throw new InvalidArgumentError(
        `${field}[${index}]`,
        `duplicate statistic name ${JSON.stringify(name)}`,
      );
    }
    seen.add(name);
  });
}
