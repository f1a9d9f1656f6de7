import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { QuantileDefinition } from './quantile.js';
import { ClusterDrawStream } from './resample-draws.js';
import { runWeightedMeansBootstrap } from './weighted-means-bootstrap.js';
import { kernelDraws, openWeightedMeansKernel } from './weighted-means-kernel.js';

const generated = new URL('./weighted-means-kernel.generated.ts', import.meta.url);
const buildScript = new URL('../kernel/build-kernel.mjs', import.meta.url);

describe('the WebAssembly kernel of weightedMeansBootstrap', () => {
  it('runs here (Node has WebAssembly SIMD): the fast path is the kernel, not the fallback', () => {
    const kernel = openWeightedMeansKernel(Float64Array.from([1, 2, 3, 4]), 2, 2, 7);
    expect(kernel).not.toBeNull();
    kernel?.original();
    expect(Array.from(kernel?.means ?? [])).toEqual([2, 3]);
    kernel?.release();
  });

  it('is the compiled kernel/weighted-means.wat (the committed base64 is not stale)', async () => {
    const { renderKernelModule } = (await import(buildScript.href)) as {
      renderKernelModule: () => Promise<string>;
    };
    expect(await renderKernelModule()).toBe(readFileSync(generated, 'utf8'));
  });

  it('draws what ClusterDrawStream draws, for any seed and range (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2 ** 32 - 1 }),
        fc.integer({ min: 1, max: 300 }),
        (seed, range) => {
          const expected = new Uint32Array(range * 3);
          new ClusterDrawStream(seed, range).fill(expected);
          expect(kernelDraws(seed, range, range * 3)).toStrictEqual(expected);
        },
      ),
      { numRuns: 100 },
    );
  });

  it('redraws as uniformInt does where rejections are frequent (ranges just above 2^30)', () => {
    // 2^32 mod (2^30 + 1) = 2^32 - 4 (2^30 + 1) + 4: about a quarter of the outputs are redrawn.
    for (const range of [2 ** 30 + 1, 1_500_000_001, 2 ** 31 - 1, 3, 2, 1])
      for (const seed of [0, 7, 20260902, 2 ** 32 - 1]) {
        const expected = new Uint32Array(400);
        new ClusterDrawStream(seed, range).fill(expected);
        expect(kernelDraws(seed, range, 400)).toStrictEqual(expected);
      }
  });
});

/** Finite values of several kinds: exact eighths, unit-range, wide-range with both signs. */
const cell = fc.oneof(
  fc.integer({ min: 0, max: 8 }).map((k) => k / 8),
  fc.double({ min: 0, max: 1, noNaN: true }),
  fc.double({ min: -1e12, max: 1e12, noNaN: true }),
);

const input = fc
  .record({
    clusters: fc.integer({ min: 1, max: 45 }),
    width: fc.integer({ min: 1, max: 21 }),
    seed: fc.integer({ min: 0, max: 2 ** 32 - 1 }),
    resamples: fc.integer({ min: 1, max: 120 }),
    method: fc.constantFrom('percentile' as const, 'expanded_percentile' as const),
    quantile: fc.constantFrom<QuantileDefinition>('linear', 'inverted_cdf'),
    undefinedBelow: fc.double({ min: -1, max: 1, noNaN: true }),
  })
  .chain((shape) =>
    fc
      .array(cell, {
        minLength: shape.clusters * shape.width,
        maxLength: shape.clusters * shape.width,
      })
      .map((values) => ({ ...shape, data: Float64Array.from(values) })),
  );

/**
 * Runs one path and records every means vector the statistic saw (as hex of its bytes), so the
 * two paths are compared replicate by replicate, not only through the summaries.
 */
function runPath(options: Input, useKernel: boolean) {
  const seen: string[] = [];
  const names = ['first', 'last', 'ratio'] as const;
  const estimates = runWeightedMeansBootstrap(
    {
      data: options.data,
      clusters: options.clusters,
      width: options.width,
      seed: options.seed,
      resamples: options.resamples,
      method: options.method,
      quantile: options.quantile,
      names,
      statistic: (means, out) => {
        seen.push(Buffer.from(means.buffer, means.byteOffset, means.byteLength).toString('hex'));
        const first = means[0] as number;
        const last = means[means.length - 1] as number;
        out[0] = first;
        out[1] = last;
        // Undefined in part of the replicates, so NaN handling is compared too.
        out[2] = first < options.undefinedBelow ? Number.NaN : first - last;
      },
    },
    useKernel,
  );
  return { estimates, seen };
}
type Input = {
  data: Float64Array;
  clusters: number;
  width: number;
  seed: number;
  resamples: number;
  method: 'percentile' | 'expanded_percentile';
  quantile: QuantileDefinition;
  undefinedBelow: number;
};

describe('weightedMeansBootstrap: kernel and JavaScript loop give the same results', () => {
  it('bit for bit: every means vector the statistic sees, and every estimate (property)', () => {
    fc.assert(
      fc.property(input, (options) => {
        const kernel = runPath(options, true);
        const javascript = runPath(options, false);
        expect(kernel.seen).toStrictEqual(javascript.seen);
        expect(kernel.estimates).toStrictEqual(javascript.estimates);
      }),
      { numRuns: 150 },
    );
  });

  it('a bootstrap called from inside a statistic gets its own kernel', () => {
    const data = Float64Array.from({ length: 40 * 6 }, (_, i) => ((i * 37) % 17) / 16);
    const inner = () =>
      runWeightedMeansBootstrap(
        {
          data,
          clusters: 40,
          width: 6,
          seed: 3,
          resamples: 30,
          names: ['m'],
          statistic: (m, o) => {
            o[0] = m[1] as number;
          },
        },
        true,
      );
    const alone = inner();
    let nested: ReturnType<typeof inner> | undefined;
    const outer = (useKernel: boolean) =>
      runWeightedMeansBootstrap(
        {
          data,
          clusters: 40,
          width: 6,
          seed: 4,
          resamples: 20,
          names: ['m'],
          statistic: (means, out, replicate) => {
            if (replicate === 5) nested = inner();
            out[0] = means[2] as number;
          },
        },
        useKernel,
      );
    expect(outer(true)).toStrictEqual(outer(false));
    expect(nested).toStrictEqual(alone);
  });

  it('a statistic that throws leaves the kernel usable for the next call', () => {
    const data = Float64Array.from({ length: 10 * 3 }, (_, i) => i / 30);
    const options = { data, clusters: 10, width: 3, seed: 9, resamples: 50, names: ['m'] as const };
    expect(() =>
      runWeightedMeansBootstrap(
        {
          ...options,
          statistic: (_m, _o, replicate) => {
            if (replicate === 7) throw new Error('boom');
          },
        },
        true,
      ),
    ).toThrow('boom');
    const statistic = (means: Float64Array, out: Float64Array) => {
      out[0] = means[1] as number;
    };
    expect(runWeightedMeansBootstrap({ ...options, statistic }, true)).toStrictEqual(
      runWeightedMeansBootstrap({ ...options, statistic }, false),
    );
  });
});
