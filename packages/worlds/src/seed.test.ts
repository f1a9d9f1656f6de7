import { InvalidArgumentError } from '@chi/spec';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { deriveSeed, fmix32, fnv1a32, seedPath } from './seed';

const utf8 = (text: string) => new TextEncoder().encode(text);

/** An independent BigInt implementation of fmix32, to check the Math.imul one. */
function fmix32Reference(value: number): number {
  const mask = 0xffffffffn;
  let hash = BigInt(value) & mask;
  hash ^= hash >> 16n;
  hash = (hash * 0x85ebca6bn) & mask;
  hash ^= hash >> 13n;
  hash = (hash * 0xc2b2ae35n) & mask;
  hash ^= hash >> 16n;
  return Number(hash);
}

describe('fnv1a32', () => {
  it('matches the published FNV-1a 32-bit test vectors', () => {
    expect(fnv1a32(utf8(''))).toBe(0x811c9dc5);
    expect(fnv1a32(utf8('a'))).toBe(0xe40c292c);
    expect(fnv1a32(utf8('foobar'))).toBe(0xbf9cf968);
  });
});

describe('fmix32', () => {
  it('matches MurmurHash3 finalizer values', () => {
    expect(fmix32(0)).toBe(0);
    expect(fmix32(1)).toBe(0x514e28b7);
    expect(fmix32(0xdeadbeef)).toBe(0x0de5c6a9);
  });

  it('agrees with a BigInt reference for any uint32', () => {
    fc.assert(
      fc.property(fc.nat({ max: 0xffffffff }), (value) => fmix32(value) === fmix32Reference(value)),
    );
  });
});

describe('seedPath', () => {
  it('joins the root seed and labels with slashes, integers in decimal', () => {
    expect(seedPath(20260901, ['world', 17])).toBe('20260901/world/17');
    expect(seedPath(0, [])).toBe('0');
  });

  it('rejects labels that would make two paths collide or not reproduce', () => {
    expect(() => seedPath(1, ['a/b'])).toThrow(InvalidArgumentError);
    expect(() => seedPath(1, [''])).toThrow(
      /labels\[0\]: expected a non-empty string without "\/"/,
    );
    expect(() => seedPath(1, ['ok', -1])).toThrow(
      /labels\[1\]: expected a non-negative safe integer/,
    );
    expect(() => seedPath(1, [1.5])).toThrow(InvalidArgumentError);
  });

  it('rejects a root seed that is not an unsigned 32-bit integer', () => {
    expect(() => seedPath(-1, [])).toThrow(/rootSeed: expected an unsigned 32-bit integer seed/);
    expect(() => seedPath(2 ** 32, [])).toThrow(InvalidArgumentError);
  });
});

describe('deriveSeed', () => {
  it('is fmix32(fnv1a32(utf8(path))), pinned so every platform derives the same seeds', () => {
    // Values cross-checked with an independent Python implementation of the documented scheme.
    expect(deriveSeed(20260901, 'world', 17)).toBe(2914897414);
    expect(deriveSeed(0)).toBe(1693486945);
    expect(deriveSeed(1, 'memory-world', 32, 'records')).toBe(785805681);
  });

  it('treats a number label and its decimal string alike (the path is text)', () => {
    expect(deriveSeed(5, 'world', 17)).toBe(deriveSeed(5, 'world', '17'));
  });

  it('always returns an unsigned 32-bit integer, and distinct paths rarely collide', () => {
    const seen = new Set<number>();
    for (let world = 0; world < 10_000; world++) {
      const seed = deriveSeed(42, 'world', world);
      expect(Number.isInteger(seed) && seed >= 0 && seed <= 0xffffffff).toBe(true);
      seen.add(seed);
    }
    expect(seen.size).toBeGreaterThanOrEqual(9_998);
  });

  it('hashes non-ASCII labels as UTF-8', () => {
    expect(deriveSeed(1, 'wörld')).toBe(fmix32(fnv1a32(utf8('1/wörld'))));
  });
});
