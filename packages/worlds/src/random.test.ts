import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createRandom, TOKEN_ALPHABET, xoroshiroStateFor } from './random';

describe('xoroshiroStateFor', () => {
  it('never yields the all-zero state a xoroshiro generator cannot leave', () => {
    fc.assert(
      fc.property(fc.nat({ max: 0xffffffff }), (seed) =>
        xoroshiroStateFor(seed).some((word) => word !== 0),
      ),
    );
    expect(xoroshiroStateFor(0).filter((word) => word === 0).length).toBeLessThanOrEqual(1);
  });
});

describe('SeededRandom', () => {
  it('replays the same stream for the same seed and a different one for another seed', () => {
    const draw = (seed: number) => {
      const random = createRandom(seed);
      return Array.from({ length: 8 }, () => random.uint32());
    };
    expect(draw(9)).toEqual(draw(9));
    expect(draw(9)).not.toEqual(draw(10));
  });

  it('draws integers inside the closed range', () => {
    fc.assert(
      fc.property(
        fc.nat({ max: 0xffffffff }),
        fc.integer({ min: -50, max: 50 }),
        fc.nat({ max: 100 }),
        (seed, min, width) => {
          const random = createRandom(seed);
          for (let draw = 0; draw < 20; draw++) {
            const value = random.int(min, min + width);
            if (!Number.isInteger(value) || value < min || value > min + width) return false;
          }
          return true;
        },
      ),
    );
  });

  it('draws every value of a small range about equally often (no modulo bias)', () => {
    const random = createRandom(123);
    const counts = [0, 0, 0];
    for (let draw = 0; draw < 30_000; draw++) {
      const value = random.int(0, 2);
      counts[value] = (counts[value] ?? 0) + 1;
    }
    for (const count of counts) expect(Math.abs(count - 10_000)).toBeLessThan(500);
  });

  it('samples distinct values, in range, even when taking the whole range', () => {
    fc.assert(
      fc.property(
        fc.nat({ max: 0xffffffff }),
        fc.integer({ min: 1, max: 200 }),
        fc.nat({ max: 200 }),
        (seed, size, wanted) => {
          const count = Math.min(size, wanted);
          const sample = createRandom(seed).sampleDistinct(size, count);
          return (
            sample.length === count &&
            new Set(sample).size === count &&
            sample.every((value) => value >= 0 && value < size)
          );
        },
      ),
    );
    expect(() => createRandom(1).sampleDistinct(3, 4)).toThrow(RangeError);
  });

  it('shuffles into a permutation of the input', () => {
    fc.assert(
      fc.property(
        fc.nat({ max: 0xffffffff }),
        fc.array(fc.integer(), { maxLength: 50 }),
        (seed, items) => {
          const shuffled = createRandom(seed).shuffle([...items]);
          return JSON.stringify([...shuffled].sort()) === JSON.stringify([...items].sort());
        },
      ),
    );
  });

  it('makes tokens from the base32 alphabet and 40-bit integers below 2^40', () => {
    const random = createRandom(77);
    for (let draw = 0; draw < 1000; draw++) {
      expect([...random.token(6)].every((character) => TOKEN_ALPHABET.includes(character))).toBe(
        true,
      );
      const value = random.uint40();
      expect(Number.isInteger(value) && value >= 0 && value < 2 ** 40).toBe(true);
    }
  });
});
