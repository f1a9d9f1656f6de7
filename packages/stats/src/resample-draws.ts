import { uniformInt } from 'pure-rand/distribution/uniformInt';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import type { RandomGenerator } from 'pure-rand/types/RandomGenerator';
import { assertPositiveInteger, assertResamples, assertSeed } from './validation.js';

/**
 * The one place randomness enters `@chi/stats`. Both bootstrap paths draw through these two
 * functions in the same order, which is what makes their multisets identical for one seed.
 *
 * Derivation (pure-rand 8.4.2, pinned exactly because a change in its algorithms would change the
 * draws): `rng = xoroshiro128plus(seed)`, then `rng.jump()` once. The jump (2^64 steps) is there
 * because xoroshiro128plus seeded with neighbouring integers starts with near-identical outputs
 * (its first output is `~seed`); after the jump, seeds 0, 1, 2 give unrelated streams.
 * @internal
 */
export function createResampleGenerator(seed: number): RandomGenerator {
  const rng = xoroshiro128plus(seed);
  rng.jump();
  return rng;
}

/**
 * One draw of a cluster index in [0, clusterCount - 1]: pure-rand's `uniformInt`, which rejects
 * 32-bit outputs above the largest multiple of `clusterCount` and is therefore unbiased.
 * @internal
 */
export function drawClusterIndex(rng: RandomGenerator, clusterCount: number): number {
  return uniformInt(rng, 0, clusterCount - 1);
}

/** Options of {@link drawResampleIndices}. */
export interface DrawResampleIndicesOptions {
  /** Number of clusters in the original sample (each replicate draws this many). */
  readonly clusterCount: number;
  /** Number of bootstrap replicates. */
  readonly resamples: number;
  /** Analysis seed, an integer in [0, 2^32 - 1]. */
  readonly seed: number;
}

/**
 * The exact cluster draws both bootstrap functions make for a seed: `resamples x clusterCount`
 * indices, row-major, replicate `r`'s draws in the order they were made at
 * `[r * clusterCount, (r + 1) * clusterCount)`. Publish or recompute these to audit a bootstrap;
 * the library itself never materialises them.
 *
 * Within a replicate the draws are independent and uniform, so replicate `r` is one multiset of
 * cluster indices drawn with replacement.
 *
 * @example
 * ```ts
 * const draws = drawResampleIndices({ clusterCount: 3, resamples: 2, seed: 7 });
 * draws.length; // 6: replicate 0 is draws[0..2], replicate 1 is draws[3..5]
 * ```
 */
export function drawResampleIndices(options: DrawResampleIndicesOptions): Uint32Array {
  const { clusterCount, resamples, seed } = options;
  assertPositiveInteger(clusterCount, 'clusterCount');
  assertResamples(resamples);
  assertSeed(seed);
  const draws = new Uint32Array(clusterCount * resamples);
  const rng = createResampleGenerator(seed);
  for (let slot = 0; slot < draws.length; slot++) draws[slot] = drawClusterIndex(rng, clusterCount);
  return draws;
}
