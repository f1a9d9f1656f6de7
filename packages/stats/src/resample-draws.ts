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

/**
 * The four 32-bit words of {@link createResampleGenerator}'s state for `seed`, in the order
 * pure-rand's `getState()` gives them (s01, s00, s11, s10): where {@link ClusterDrawStream} and
 * the WebAssembly kernel start.
 * @internal
 */
export function resampleStateWords(seed: number): [number, number, number, number] {
  const [s01, s00, s11, s10] = createResampleGenerator(seed).getState() as number[];
  return [s01 as number, s00 as number, s11 as number, s10 as number];
}

/**
 * pure-rand's `uniformIntInternal` rule for a range of `clusterCount` values: 32-bit outputs at
 * or above this (the largest multiple of the range, or 2^32 when every output is accepted) are
 * redrawn.
 * @internal
 */
export function clusterDrawLimit(clusterCount: number): number {
  if (!(clusterCount >= 1 && clusterCount <= 2 ** 32))
    throw new RangeError(`clusterCount ${clusterCount} is outside 1 .. 2^32`);
  return clusterCount > 2 ? Math.floor(4294967296 / clusterCount) * clusterCount : 4294967296;
}

/**
 * The draws of {@link drawClusterIndex} over {@link createResampleGenerator}'s stream, computed
 * inline: the same xoroshiro128plus step and the same rejection rule as pure-rand 8.4.2, on four
 * local 32-bit words instead of a method call and four property reads per draw. Every draw equals
 * the one `drawClusterIndex` would make at the same position of the stream (a test holds the two
 * together, rejections included).
 * @internal
 */
export class ClusterDrawStream {
  #s01: number;
  #s00: number;
  #s11: number;
  #s10: number;
  readonly #range: number;
  readonly #maxAllowed: number;

  constructor(seed: number, clusterCount: number) {
    const [s01, s00, s11, s10] = resampleStateWords(seed);
    this.#s01 = s01;
    this.#s00 = s00;
    this.#s11 = s11;
    this.#s10 = s10;
    this.#range = clusterCount;
    this.#maxAllowed = clusterDrawLimit(clusterCount);
  }

  /** Fills `out` with the next `out.length` cluster indices, in draw order. */
  fill(out: Uint32Array): void {
    let s01 = this.#s01;
    let s00 = this.#s00;
    let s11 = this.#s11;
    let s10 = this.#s10;
    const range = this.#range;
    const maxAllowed = this.#maxAllowed;
    for (let slot = 0; slot < out.length; slot++) {
      let delta: number;
      do {
        // xoroshiro128plus.next() of pure-rand, then its uniformIntInternal's shift and rejection.
        delta = ((s00 + s10) | 0) + 2147483648;
        const a0 = s10 ^ s00;
        const a1 = s11 ^ s01;
        const old00 = s00;
        const old01 = s01;
        s00 = (old00 << 24) ^ (old01 >>> 8) ^ a0 ^ (a0 << 16);
        s01 = (old01 << 24) ^ (old00 >>> 8) ^ a1 ^ ((a1 << 16) | (a0 >>> 16));
        s10 = (a1 << 5) ^ (a0 >>> 27);
        s11 = (a0 << 5) ^ (a1 >>> 27);
      } while (delta >= maxAllowed);
      out[slot] = delta % range;
    }
    this.#s01 = s01;
    this.#s00 = s00;
    this.#s11 = s11;
    this.#s10 = s10;
  }
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
  new ClusterDrawStream(seed, clusterCount).fill(draws);
  return draws;
}
