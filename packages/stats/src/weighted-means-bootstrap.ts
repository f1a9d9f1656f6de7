import { InvalidArgumentError } from '@chi/spec';
import {
  assertStatisticNames,
  type BootstrapEstimates,
  estimateWithoutResampling,
  type QuantileChoice,
  resolveQuantiles,
  runFacts,
  summarizeReplicates,
} from './bootstrap-estimate.js';
import { BOOTSTRAP_DEFAULTS } from './cluster-bootstrap.js';
import { assertIntervalMethod, type IntervalMethod } from './interval-method.js';
import type { QuantileDefinition } from './quantile.js';
import { ClusterDrawStream } from './resample-draws.js';
import {
  assertFunction,
  assertLevel,
  assertPositiveInteger,
  assertResamples,
  assertSeed,
  describeValue,
} from './validation.js';
import { openWeightedMeansKernel } from './weighted-means-kernel.js';

/**
 * A fast-path statistic: reads the `width` cluster-weighted means and writes one value per name
 * into `out` (same order as `names`). `out` is reset to NaN before every call; a value left NaN,
 * or set to NaN, is undefined for that replicate. Infinities throw. Both arrays are reused between
 * calls: do not keep references to them, and allocate nothing here if speed matters.
 *
 * `replicate` says which sample this call computes: `-1` for the original sample (the point
 * estimate), then `0 .. resamples - 1` for the bootstrap replicates in order, so a statistic
 * that counts something per replicate needs no call counter of its own.
 */
export type WeightedMeansStatistic = (
  means: Float64Array,
  out: Float64Array,
  replicate: number,
) => void;

/** Options of {@link weightedMeansBootstrap}. */
export interface WeightedMeansBootstrapOptions<K extends string> {
  /** `clusters x width` finite values, row-major: cluster `i` is `data[i * width .. (i + 1) * width - 1]`. */
  readonly data: Float64Array;
  /** Number of clusters (rows). */
  readonly clusters: number;
  /** Values per cluster (columns), e.g. systems x loads x factors. */
  readonly width: number;
  /** Names of the values `statistic` writes, in `out` order. Distinct, at least one. */
  readonly names: readonly K[];
  /** Computes the named values from the column means of one (re)sample. */
  readonly statistic: WeightedMeansStatistic;
  /** Analysis seed, an integer in [0, 2^32 - 1]. */
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
  readonly quantile?: QuantileChoice<K>;
}

/**
 * Reusable buffers of the hot loop, allocated once per call of {@link weightedMeansBootstrap}.
 * `rowOffsets` / `rowWeights` hold the rows drawn at least once and their counts.
 */
interface WeightedMeansScratch {
  readonly counts: Int32Array;
  readonly rowOffsets: Int32Array;
  readonly rowWeights: Float64Array;
  readonly means: Float64Array;
}

/**
 * Column means of `data` weighted by `scratch.counts` (a multiset of rows), into `scratch.means`.
 *
 * Rows drawn zero times (about 37% of them) are skipped, and the remaining rows are added four
 * at a time so each mean is loaded and stored once per four rows instead of once per row: this
 * halves the pilot benchmark. The summation order is fixed (row index ascending, groups of
 * four), so results are deterministic; they can differ from a row-by-row sum in the last bits.
 */
function weightedColumnMeans(
  data: Float64Array,
  width: number,
  total: number,
  scratch: WeightedMeansScratch,
): void {
  const { counts, rowOffsets, rowWeights, means } = scratch;
  let used = 0;
  for (let row = 0; row < counts.length; row++) {
    const count = counts[row] as number;
    if (count === 0) continue;
    rowOffsets[used] = row * width;
    rowWeights[used] = count;
    used++;
  }
  means.fill(0);
  let next = 0;
  for (; next + 3 < used; next += 4) {
    const o0 = rowOffsets[next] as number;
    const o1 = rowOffsets[next + 1] as number;
    const o2 = rowOffsets[next + 2] as number;
    const o3 = rowOffsets[next + 3] as number;
    const w0 = rowWeights[next] as number;
    const w1 = rowWeights[next + 1] as number;
    const w2 = rowWeights[next + 2] as number;
    const w3 = rowWeights[next + 3] as number;
    for (let column = 0; column < width; column++) {
      means[column] =
        (means[column] as number) +
        (w0 * (data[o0 + column] as number) +
          w1 * (data[o1 + column] as number) +
          w2 * (data[o2 + column] as number) +
          w3 * (data[o3 + column] as number));
    }
  }
  for (; next < used; next++) {
    const offset = rowOffsets[next] as number;
    const weight = rowWeights[next] as number;
    for (let column = 0; column < width; column++) {
      means[column] = (means[column] as number) + weight * (data[offset + column] as number);
    }
  }
  for (let column = 0; column < width; column++) means[column] = (means[column] as number) / total;
}

// long-function: argument checks in the order of the fields, each with its own message
function validateOptions<K extends string>(
  options: WeightedMeansBootstrapOptions<K>,
): Required<Omit<WeightedMeansBootstrapOptions<K>, 'quantile'>> & {
  readonly quantiles: QuantileDefinition[];
} {
  const {
    data,
    clusters,
    width,
    names,
    statistic,
    seed,
    resamples = BOOTSTRAP_DEFAULTS.resamples,
    level = BOOTSTRAP_DEFAULTS.level,
    method = BOOTSTRAP_DEFAULTS.method,
  } = options;
  if (clusters === 0) {
    throw new InvalidArgumentError('clusters', 'expected at least one cluster (world), found 0');
  }
  assertPositiveInteger(clusters, 'clusters');
  assertPositiveInteger(width, 'width');
  if (!(data instanceof Float64Array)) {
    throw new InvalidArgumentError('data', `expected a Float64Array, found ${describeValue(data)}`);
  }
  if (data.length !== clusters * width) {
    throw new InvalidArgumentError(
      'data',
      `has length ${data.length}, expected clusters x width = ${clusters} x ${width} = ${clusters * width}`,
    );
  }
  for (let index = 0; index < data.length; index++) {
    const value = data[index] as number;
    if (!Number.isFinite(value)) {
      throw new InvalidArgumentError(
        `data[${index}]`,
        `expected a finite number (cluster ${Math.floor(index / width)}, column ${index % width}), found ${describeValue(value)}`,
      );
    }
  }
  assertStatisticNames(names, 'names');
  assertFunction(statistic, 'statistic');
  assertResamples(resamples);
  assertSeed(seed);
  assertLevel(level);
  assertIntervalMethod(method);
  const quantiles = resolveQuantiles(options.quantile as QuantileChoice | undefined, names);
  return { data, clusters, width, names, statistic, seed, resamples, level, method, quantiles };
}

/** Where a replicate's means come from: the WebAssembly kernel or the JavaScript loop. */
interface MeansSource {
  readonly means: Float64Array;
  original(): void;
  resample(): void;
  release(): void;
}

/** The JavaScript replicate loop: the reference the kernel is held to. */
function javascriptMeans(
  data: Float64Array,
  clusters: number,
  width: number,
  seed: number,
): MeansSource {
  const scratch: WeightedMeansScratch = {
    counts: new Int32Array(clusters),
    rowOffsets: new Int32Array(clusters),
    rowWeights: new Float64Array(clusters),
    means: new Float64Array(width),
  };
  const { counts } = scratch;
  // The same draws as `drawClusterIndex` over `createResampleGenerator(seed)`, inlined.
  const stream = new ClusterDrawStream(seed, clusters);
  const drawn = new Uint32Array(clusters);
  return {
    means: scratch.means,
    original: () => {
      counts.fill(1);
      weightedColumnMeans(data, width, clusters, scratch);
    },
    resample: () => {
      counts.fill(0);
      stream.fill(drawn);
      for (let draw = 0; draw < clusters; draw++) {
        const row = drawn[draw] as number;
        counts[row] = (counts[row] as number) + 1;
      }
      weightedColumnMeans(data, width, clusters, scratch);
    },
    release: () => {},
  };
}

/**
 * Calls `statistic` on `means` into `out` (reset to NaN first) and rejects an infinity. The
 * message is built only when something is wrong, so the hot loop allocates nothing.
 */
function statisticEvaluator(
  statistic: WeightedMeansStatistic,
  names: readonly string[],
  means: Float64Array,
  out: Float64Array,
): (replicate: number) => void {
  return (replicate) => {
    out.fill(Number.NaN);
    statistic(means, out, replicate);
    for (let index = 0; index < out.length; index++) {
      const value = out[index] as number;
      if (value === Number.POSITIVE_INFINITY || value === Number.NEGATIVE_INFINITY) {
        throw new InvalidArgumentError(
          'statistic',
          `wrote ${value} for ${JSON.stringify(names[index])} on ${replicate < 0 ? 'the original sample' : `replicate ${replicate}`}; write a finite number, or NaN for an undefined value`,
        );
      }
    }
  };
}

/**
 * Fast path of {@link clusterBootstrap} for the common case "statistic = f(equally weighted
 * means over clusters of per-cluster vectors)", such as Q_M of world-mean factors and EIMC.
 *
 * A replicate is the same multiset of clusters `clusterBootstrap` draws for the same seed (the
 * draws are identical, in the same order), but it is held as a count per cluster (multinomial
 * weights) in an `Int32Array`; the means are `sum_i count_i * row_i / clusters`, over the drawn
 * rows only. Nothing is allocated per replicate. The point estimate uses every count = 1.
 *
 * Results agree with `clusterBootstrap` over the same rows up to floating-point summation order
 * (exactly, when the sums are exact, e.g. factors that are multiples of 1/8).
 *
 * The replicate loop (draws, counts, means) runs in a small WebAssembly SIMD kernel shipped inside
 * the package, with the same draws and the same summation order as the JavaScript loop it
 * replaces, so results are bit for bit the same; where WebAssembly is unavailable the JavaScript
 * loop runs instead. The statistic is called once per replicate either way.
 *
 * @throws InvalidArgumentError on bad dimensions, a `data` length other than `clusters * width`,
 * NaN or infinite data, bad names, resamples < 1, level outside (0, 1), a bad seed, or a statistic
 * writing an infinity.
 *
 * @example
 * ```ts
 * // 3 worlds x 2 factors; statistic: geometric mean of the two world-mean factors.
 * const { data, clusters, width } = packClusterVectors([[1, 0.75], [0.5, 0.5], [0.75, 1]]);
 * const result = weightedMeansBootstrap({
 *   data, clusters, width, seed: 20260901,
 *   names: ['quality'],
 *   statistic: (means, out) => { out[0] = Math.sqrt(means[0]! * means[1]!); },
 * });
 * result.quality.estimate; // 0.75
 * ```
 */
export function weightedMeansBootstrap<const K extends string>(
  options: WeightedMeansBootstrapOptions<K>,
): BootstrapEstimates<K> {
  return runWeightedMeansBootstrap(options, true);
}

/**
 * {@link weightedMeansBootstrap}, with the WebAssembly kernel (`useKernel`, where it can run) or
 * the JavaScript replicate loop: the two give the same results, which the tests check.
 * @internal
 */
export function runWeightedMeansBootstrap<const K extends string>(
  options: WeightedMeansBootstrapOptions<K>,
  useKernel: boolean,
): BootstrapEstimates<K> {
  const input = validateOptions(options);
  const { data, clusters, width, names, statistic, seed, resamples, quantiles } = input;
  const run = runFacts(input.level, input.method, clusters, seed);
  const source: MeansSource =
    (useKernel && clusters >= 2 ? openWeightedMeansKernel(data, clusters, width, seed) : null) ??
    javascriptMeans(data, clusters, width, seed);
  try {
    const out = new Float64Array(names.length);
    const evaluate = statisticEvaluator(statistic, names, source.means, out);
    source.original();
    evaluate(-1);
    const point = Array.from(out, (value) => (Number.isNaN(value) ? null : value));
    if (clusters < 2) {
      return Object.fromEntries(
        names.map((name, i) => [
          name,
          estimateWithoutResampling(point[i] ?? null, quantiles[i]!, run),
        ]),
      ) as BootstrapEstimates<K>;
    }
    // Replicates by statistic: statistic i's are replicates[i * resamples .. (i + 1) * resamples).
    const replicates = new Float64Array(names.length * resamples);
    for (let replicate = 0; replicate < resamples; replicate++) {
      source.resample();
      evaluate(replicate);
      for (let index = 0; index < out.length; index++) {
        replicates[index * resamples + replicate] = out[index] as number;
      }
    }
    const scratch = new Float64Array(resamples);
    return Object.fromEntries(
      names.map((name, i) => {
        const column = replicates.subarray(i * resamples, (i + 1) * resamples);
        return [name, summarizeReplicates(point[i] ?? null, column, quantiles[i]!, run, scratch)];
      }),
    ) as BootstrapEstimates<K>;
  } finally {
    source.release();
  }
}
