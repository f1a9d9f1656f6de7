import { InvalidArgumentError } from '@chi/spec';

/** One step of a seed path: a non-empty string without `/`, or a non-negative safe integer. */
export type SeedLabel = string | number;

const FNV_OFFSET_BASIS = 0x811c9dc5;
const FNV_PRIME = 0x01000193;
const encoder = new TextEncoder();

/**
 * 32-bit FNV-1a over bytes (offset basis 0x811c9dc5, prime 0x01000193).
 *
 * @example
 * ```ts
 * fnv1a32(new TextEncoder().encode('a')); // 0xe40c292c
 * ```
 */
export function fnv1a32(bytes: Uint8Array): number {
  let hash = FNV_OFFSET_BASIS;
  for (let index = 0; index < bytes.length; index++) {
    hash ^= bytes[index] ?? 0;
    hash = Math.imul(hash, FNV_PRIME);
  }
  return hash >>> 0;
}

/** MurmurHash3's 32-bit finalizer: a bijection on uint32 with full avalanche. */
export function fmix32(value: number): number {
  let hash = value >>> 0;
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  hash ^= hash >>> 16;
  return hash >>> 0;
}

function assertSeed(field: string, seed: number): void {
  if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff) {
    throw new InvalidArgumentError(
      field,
      `expected an unsigned 32-bit integer seed (0 to 4294967295), found ${String(seed)}`,
    );
  }
}

/**
 * The text a seed path hashes: the root seed in decimal, then `/` and each label (integers in
 * decimal). `seedPath(20260901, 'world', 17)` is `"20260901/world/17"`.
 */
export function seedPath(rootSeed: number, labels: readonly SeedLabel[]): string {
  assertSeed('rootSeed', rootSeed);
  let path = String(rootSeed);
  labels.forEach((label, index) => {
    if (typeof label === 'number') {
      if (!Number.isSafeInteger(label) || label < 0) {
        throw new InvalidArgumentError(
          `labels[${index}]`,
          `expected a non-negative safe integer or a string, found ${String(label)}`,
        );
      }
    } else if (label.length === 0 || label.includes('/')) {
      throw new InvalidArgumentError(
        `labels[${index}]`,
        `expected a non-empty string without "/", found ${JSON.stringify(label)}`,
      );
    }
    path += `/${String(label)}`;
  });
  return path;
}

/**
 * Derives an independent 32-bit seed from a root seed and a path of labels, identically on every
 * platform: `fmix32(fnv1a32(utf8(seedPath(rootSeed, labels))))`. Use it to give every world,
 * load and generator its own seed, so world 17 of load 128 is the same everywhere.
 *
 * The generators call it internally too (`generateMemoryWorld` hashes
 * `seed/memory-world/<load>/records`, `generateHistoryWorld` `seed/history-world`, ...), so one
 * world seed can feed all three generators without correlation between them.
 *
 * @example
 * ```ts
 * const worldSeed = deriveSeed(20260901, 'world', 17);
 * const world = generateMemoryWorld({ seed: worldSeed, load: 128 });
 * ```
 */
export function deriveSeed(rootSeed: number, ...labels: readonly SeedLabel[]): number {
  return fmix32(fnv1a32(encoder.encode(seedPath(rootSeed, labels))));
}

/** Throws `InvalidArgumentError(field, ...)` unless `seed` is an unsigned 32-bit integer. */
export function assertSeedArgument(field: string, seed: number): void {
  assertSeed(field, seed);
}
