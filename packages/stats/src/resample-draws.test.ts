import { InvalidArgumentError } from '@chi/spec';
import fc from 'fast-check';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import { describe, expect, it } from 'vitest';
import {
  ClusterDrawStream,
  createResampleGenerator,
  drawClusterIndex,
  drawResampleIndices,
} from './resample-draws.js';

describe('drawResampleIndices', () => {
  it('is pinned: these draws are the reproducibility contract (changing them is a breaking change)', () => {
    // If this fails after a dependency update, pure-rand's generator or uniformInt changed and
    // every published interval would move: keep pure-rand pinned or bump the major version.
    expect(Array.from(drawResampleIndices({ clusterCount: 2, resamples: 8, seed: 7 }))).toEqual([
      1, 1, 1, 1, 1, 1, 1, 0, 1, 0, 1, 1, 1, 1, 0, 0,
    ]);
    expect(Array.from(drawResampleIndices({ clusterCount: 3, resamples: 4, seed: 42 }))).toEqual([
      1, 1, 0, 1, 0, 1, 0, 0, 2, 1, 2, 2,
    ]);
  });

  it('derives the generator as xoroshiro128plus(seed) followed by one jump', () => {
    const expected = xoroshiro128plus(123);
    expected.jump();
    const actual = createResampleGenerator(123);
    expect(Array.from({ length: 5 }, () => actual.next())).toEqual(
      Array.from({ length: 5 }, () => expected.next()),
    );
  });

  it('gives neighbouring seeds unrelated first draws (the reason for the jump)', () => {
    const firstDraws = [0, 1, 2, 3].map((seed) =>
      Array.from(drawResampleIndices({ clusterCount: 50, resamples: 1, seed }).subarray(0, 3)),
    );
    // Without the jump these would be 47-seed, ... (the generator's first output is ~seed).
    expect(firstDraws).toEqual([
      [22, 27, 35],
      [1, 32, 1],
      [8, 36, 41],
      [27, 13, 1],
    ]);
  });

  it('draws every index about equally often', () => {
    const clusterCount = 7;
    const draws = drawResampleIndices({ clusterCount, resamples: 10_000, seed: 1 });
    const frequency = new Array<number>(clusterCount).fill(0);
    for (const index of draws) frequency[index] = (frequency[index] as number) + 1;
    const expected = draws.length / clusterCount; // 10000
    // Binomial sd is about 93; 5 sd is a generous, deterministic bound.
    for (const count of frequency) expect(Math.abs(count - expected)).toBeLessThan(5 * 93);
  });

  it('is deterministic and in range for any shape and seed', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 1, max: 30 }),
        fc.integer({ min: 0, max: 0xffff_ffff }),
        (clusterCount, resamples, seed) => {
          const first = drawResampleIndices({ clusterCount, resamples, seed });
          const second = drawResampleIndices({ clusterCount, resamples, seed });
          expect(first.length).toBe(clusterCount * resamples);
          expect(Array.from(first)).toEqual(Array.from(second));
          for (const index of first) expect(index).toBeLessThan(clusterCount);
        },
      ),
    );
  });

  it('replicate r is a prefix-stable block: more resamples only append', () => {
    const short = drawResampleIndices({ clusterCount: 5, resamples: 3, seed: 9 });
    const long = drawResampleIndices({ clusterCount: 5, resamples: 10, seed: 9 });
    expect(Array.from(long.subarray(0, short.length))).toEqual(Array.from(short));
  });

  it('rejects bad arguments naming the field', () => {
    const field = (run: () => unknown): string | undefined => {
      try {
        run();
      } catch (error) {
        return InvalidArgumentError.isInstance(error) ? error.field : 'not a InvalidArgumentError';
      }
      return undefined;
    };
    expect(field(() => drawResampleIndices({ clusterCount: 0, resamples: 1, seed: 1 }))).toBe(
      'clusterCount',
    );
    expect(field(() => drawResampleIndices({ clusterCount: 2, resamples: 0, seed: 1 }))).toBe(
      'resamples',
    );
    expect(field(() => drawResampleIndices({ clusterCount: 2, resamples: 1, seed: 0.5 }))).toBe(
      'seed',
    );
  });
});

describe('ClusterDrawStream (the inlined draws of both bootstrap paths)', () => {
  /** The reference: pure-rand's uniformInt over the derived generator, one call per draw. */
  function reference(seed: number, clusterCount: number, draws: number): number[] {
    const rng = createResampleGenerator(seed);
    return Array.from({ length: draws }, () => drawClusterIndex(rng, clusterCount));
  }

  it('draws exactly what drawClusterIndex draws, across calls, for any seed and count (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2 ** 32 - 1 }),
        fc.integer({ min: 1, max: 200 }),
        fc.integer({ min: 1, max: 7 }),
        (seed, clusterCount, calls) => {
          const stream = new ClusterDrawStream(seed, clusterCount);
          const out = new Uint32Array(clusterCount);
          const actual: number[] = [];
          for (let call = 0; call < calls; call++) {
            stream.fill(out);
            actual.push(...out);
          }
          expect(actual).toEqual(reference(seed, clusterCount, clusterCount * calls));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('redraws as uniformInt does: counts whose rejection zone is large, and the full 2^32 range', () => {
    for (const clusterCount of [2 ** 31 + 1, 3_000_000_001, 2 ** 32 - 1, 2 ** 32, 3, 2, 1])
      for (const seed of [0, 7, 20260902, 2 ** 32 - 1]) {
        const out = new Uint32Array(500);
        new ClusterDrawStream(seed, clusterCount).fill(out);
        expect(Array.from(out)).toEqual(reference(seed, clusterCount, 500));
      }
  });
});
