import { uniformInt } from 'pure-rand/distribution/uniformInt';
import { xoroshiro128plusFromState } from 'pure-rand/generator/xoroshiro128plus';
import type { RandomGenerator } from 'pure-rand/types/RandomGenerator';
import { fmix32 } from './seed';

const GOLDEN_GAMMA = 0x9e3779b9;

/** Crockford's base32 alphabet in lower case (no i, l, o, u): tokens that survive retyping. */
export const TOKEN_ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

/**
 * The xoroshiro128+ state for a 32-bit seed: word k (k = 0..3) is
 * `fmix32(seed + (k + 1) * 0x9e3779b9 mod 2^32)`. The four inputs differ and fmix32 is a
 * bijection, so at most one word is zero and the state is never all-zero.
 */
export function xoroshiroStateFor(seed: number): number[] {
  const state: number[] = [];
  for (let word = 0; word < 4; word++) {
    state.push(fmix32((seed + Math.imul(word + 1, GOLDEN_GAMMA)) >>> 0) | 0);
  }
  return state;
}

/**
 * A seeded stream of random draws over pure-rand's xoroshiro128+ (mutable, one owner). Integer
 * draws are unbiased: `int` uses pure-rand's rejection sampling; `uint40` and `token` take whole
 * high bits (the low bits of "+" generators are the weakest). Internal to the generators.
 */
export class SeededRandom {
  readonly #generator: RandomGenerator;

  constructor(seed: number) {
    this.#generator = xoroshiro128plusFromState(xoroshiroStateFor(seed));
  }

  /** A uniform unsigned 32-bit integer. */
  uint32(): number {
    return this.#generator.next() >>> 0;
  }

  /** A uniform integer in [min, max], both included. */
  int(min: number, max: number): number {
    return uniformInt(this.#generator, min, max);
  }

  /** True with probability numerator / denominator. */
  chance(numerator: number, denominator: number): boolean {
    return this.int(0, denominator - 1) < numerator;
  }

  /** A uniform 40-bit non-negative integer (8 base32 digits). */
  uint40(): number {
    const high = this.#generator.next() >>> 24;
    return high * 0x100000000 + (this.#generator.next() >>> 0);
  }

  /** One element of a non-empty array, uniformly. */
  pick<T>(items: readonly T[]): T {
    const item = items[this.int(0, items.length - 1)];
    if (item === undefined) throw new RangeError('pick from an empty array');
    return item;
  }

  /** Shuffles `items` in place (Fisher-Yates) and returns it. */
  shuffle<T>(items: T[]): T[] {
    for (let last = items.length - 1; last > 0; last--) {
      const other = this.int(0, last);
      const kept = items[last] as T;
      items[last] = items[other] as T;
      items[other] = kept;
    }
    return items;
  }

  /**
   * `count` distinct integers from [0, size), in random order, in O(count) time and memory
   * (a partial Fisher-Yates over a virtual array of `size` slots).
   */
  sampleDistinct(size: number, count: number): number[] {
    if (count > size) throw new RangeError(`cannot draw ${count} distinct values from ${size}`);
    const moved = new Map<number, number>();
    const out: number[] = [];
    for (let slot = 0; slot < count; slot++) {
      const chosen = this.int(slot, size - 1);
      const atChosen = moved.get(chosen) ?? chosen;
      const atSlot = moved.get(slot) ?? slot;
      moved.set(chosen, atSlot);
      out.push(atChosen);
    }
    return out;
  }

  /** `length` characters of {@link TOKEN_ALPHABET}, uniformly. */
  token(length: number): string {
    let out = '';
    for (let index = 0; index < length; index++) {
      out += TOKEN_ALPHABET[this.#generator.next() >>> 27];
    }
    return out;
  }
}

/** A fresh random stream for `seed` (an unsigned 32-bit integer). */
export function createRandom(seed: number): SeededRandom {
  return new SeededRandom(seed);
}
