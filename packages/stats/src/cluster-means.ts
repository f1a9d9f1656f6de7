import { InvalidArgumentError } from '@chi/spec';
import { describeValue } from './validation.js';

/**
 * The equally weighted mean over clusters of one number per cluster: each world counts once,
 * however many observations it holds. Use it inside a `clusterBootstrap` statistic, where
 * `clusters` is the resampled multiset (a world drawn twice counts twice).
 *
 * Throws a `InvalidArgumentError` on an empty list or a non-finite selected value: missing cells must
 * be handled before the bootstrap (the protocol compares complete blocks only).
 *
 * @example
 * ```ts
 * meanOverClusters([{ r: 0.5 }, { r: 1 }], (world) => world.r); // 0.75
 * ```
 */
export function meanOverClusters<C>(
  clusters: readonly C[],
  select: (cluster: C) => number,
): number {
  if (clusters.length === 0) {
    throw new InvalidArgumentError(
      'clusters',
      'expected at least one cluster, found an empty list',
    );
  }
  let sum = 0;
  for (let index = 0; index < clusters.length; index++) {
    const value = select(clusters[index] as C);
    if (typeof value !== 'number' || !Number.isFinite(value)) {
      throw new InvalidArgumentError(
        `clusters[${index}]`,
        `selected value must be a finite number, found ${describeValue(value)}`,
      );
    }
    sum += value;
  }
  return sum / clusters.length;
}

/**
 * The elementwise equally weighted mean over clusters of one vector per cluster (all of one
 * length), summed in list order. Returns a new `Float64Array`.
 *
 * @example
 * ```ts
 * meanVectorOverClusters([[0, 1], [1, 1]], (world) => world); // Float64Array [0.5, 1]
 * ```
 */
export function meanVectorOverClusters<C>(
  clusters: readonly C[],
  select: (cluster: C) => ArrayLike<number>,
): Float64Array {
  if (clusters.length === 0) {
    throw new InvalidArgumentError(
      'clusters',
      'expected at least one cluster, found an empty list',
    );
  }
  let sums: Float64Array | undefined;
  for (let index = 0; index < clusters.length; index++) {
    const vector = select(clusters[index] as C);
    sums ??= new Float64Array(vector.length);
    if (vector.length !== sums.length) {
      throw new InvalidArgumentError(
        `clusters[${index}]`,
        `selected vector has length ${vector.length}, expected ${sums.length} like clusters[0]`,
      );
    }
    for (let column = 0; column < sums.length; column++) {
      const value = vector[column];
      if (typeof value !== 'number' || !Number.isFinite(value)) {
        throw new InvalidArgumentError(
          `clusters[${index}][${column}]`,
          `expected a finite number, found ${describeValue(value)}`,
        );
      }
      sums[column] = (sums[column] as number) + value;
    }
  }
  const means = sums as Float64Array;
  for (let column = 0; column < means.length; column++) {
    means[column] = (means[column] as number) / clusters.length;
  }
  return means;
}

/** Cluster vectors packed for {@link weightedMeansBootstrap}: `clusters x width`, row-major. */
export interface PackedClusterVectors {
  /** Row `i` (cluster `i`) occupies `data[i * width .. (i + 1) * width - 1]`. */
  readonly data: Float64Array;
  /** Number of rows (clusters). */
  readonly clusters: number;
  /** Length of every row. */
  readonly width: number;
}

/**
 * Packs one equal-length vector per cluster into the row-major `Float64Array` the fast path
 * takes, checking lengths and finiteness once up front.
 *
 * @example
 * ```ts
 * packClusterVectors([[1, 2], [3, 4]]); // { data: Float64Array [1, 2, 3, 4], clusters: 2, width: 2 }
 * ```
 */
export function packClusterVectors(vectors: readonly ArrayLike<number>[]): PackedClusterVectors {
  const first = vectors[0];
  if (first === undefined) {
    throw new InvalidArgumentError(
      'vectors',
      'expected at least one cluster vector, found an empty list',
    );
  }
  const width = first.length;
  if (width === 0) {
    throw new InvalidArgumentError(
      'vectors[0]',
      'expected a vector of length >= 1, found length 0',
    );
  }
  const data = new Float64Array(vectors.length * width);
  vectors.forEach((vector, row) => {
    if (vector.length !== width) {
      throw new InvalidArgumentError(
        `vectors[${row}]`,
        `has length ${vector.length}, expected ${width} like vectors[0]`,
      );
    }
    for (let column = 0; column < width; column++) {
      const value = vector[column];
      if (typeof value !== 'number' || !Number.isFinite(value)) {
        throw new InvalidArgumentError(
          `vectors[${row}][${column}]`,
          `expected a finite number, found ${describeValue(value)}`,
        );
      }
      data[row * width + column] = value;
    }
  });
  return { data, clusters: vectors.length, width };
}
