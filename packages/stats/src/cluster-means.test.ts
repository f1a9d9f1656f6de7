import { InvalidArgumentError } from '@chi/spec';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { meanOverClusters, meanVectorOverClusters, packClusterVectors } from './cluster-means.js';

function fieldOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    return InvalidArgumentError.isInstance(error) ? error.field : 'not a InvalidArgumentError';
  }
  return undefined;
}

describe('meanOverClusters', () => {
  it('weights every cluster once, and a cluster drawn twice twice', () => {
    expect(meanOverClusters([{ r: 0.5 }, { r: 1 }], (world) => world.r)).toBe(0.75);
    const a = { r: 0.25 };
    const b = { r: 1 };
    expect(meanOverClusters([a, a, b], (world) => world.r)).toBe(0.5);
  });

  it('rejects an empty sample and non-finite values', () => {
    expect(fieldOf(() => meanOverClusters([], (x: number) => x))).toBe('clusters');
    expect(fieldOf(() => meanOverClusters([1, Number.NaN], (x) => x))).toBe('clusters[1]');
  });

  it('lies within [min, max] of the selected values', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: -1e6, max: 1e6, noNaN: true }), { minLength: 1 }),
        (xs) => {
          const mean = meanOverClusters(xs, (x) => x);
          expect(mean).toBeGreaterThanOrEqual(Math.min(...xs));
          expect(mean).toBeLessThanOrEqual(Math.max(...xs));
        },
      ),
    );
  });
});

describe('meanVectorOverClusters', () => {
  it('averages elementwise', () => {
    const means = meanVectorOverClusters(
      [
        [0, 1, 0.5],
        [1, 1, 0.25],
      ],
      (world) => world,
    );
    expect(Array.from(means)).toEqual([0.5, 1, 0.375]);
  });

  it('rejects vectors of different lengths and non-finite entries', () => {
    expect(fieldOf(() => meanVectorOverClusters([[1, 2], [3]], (v) => v))).toBe('clusters[1]');
    expect(fieldOf(() => meanVectorOverClusters([[1, Number.NaN]], (v) => v))).toBe(
      'clusters[0][1]',
    );
    expect(fieldOf(() => meanVectorOverClusters([], (v: number[]) => v))).toBe('clusters');
  });
});

describe('packClusterVectors', () => {
  it('packs rows row-major', () => {
    const packed = packClusterVectors([
      [1, 2],
      [3, 4],
      [5, 6],
    ]);
    expect(packed.clusters).toBe(3);
    expect(packed.width).toBe(2);
    expect(Array.from(packed.data)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('rejects no vectors, empty vectors, mismatched lengths and non-finite values', () => {
    expect(fieldOf(() => packClusterVectors([]))).toBe('vectors');
    expect(fieldOf(() => packClusterVectors([[]]))).toBe('vectors[0]');
    expect(fieldOf(() => packClusterVectors([[1, 2], [3]]))).toBe('vectors[1]');
    expect(fieldOf(() => packClusterVectors([[1], [Number.POSITIVE_INFINITY]]))).toBe(
      'vectors[1][0]',
    );
  });
});
