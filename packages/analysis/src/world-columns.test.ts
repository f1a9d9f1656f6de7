import { weightedMeansBootstrap } from '@chi/stats';
import { describe, expect, it } from 'vitest';
import { meanOverSet, WorldColumns } from './world-columns';

describe('WorldColumns', () => {
  it('packs one indicator per distinct world set and values zero outside their set', () => {
    const columns = new WorldColumns([11, 12, 13]);
    const set = new Set([11, 13]);
    const indicator = columns.indicator(set);
    expect(columns.indicator(new Set([13, 11]))).toBe(indicator);
    const values = columns.values(set, (seed) => (seed === 11 ? 0.5 : 1));
    const { data, clusters, width } = columns.pack();
    expect([clusters, width]).toEqual([3, 2]);
    // rows: world 11, 12, 13; columns: indicator, values
    expect([...data]).toEqual([1, 0.5, 0, 0, 1, 1]);
    expect(values).toBe(1);
    expect(() => columns.values(new Set([99]), () => 1)).toThrow(/world 99 is not a planned world/);
  });

  it('gives the mean over the set in the estimate and in every replicate', () => {
    const columns = new WorldColumns([1, 2, 3, 4]);
    const set = new Set([1, 3]);
    const indicator = columns.indicator(set);
    const values = columns.values(set, (seed) => (seed === 1 ? 0.25 : 0.75));
    const seen: (number | null)[] = [];
    const result = weightedMeansBootstrap({
      ...columns.pack(),
      names: ['mean'],
      seed: 7,
      resamples: 50,
      statistic: (means, out) => {
        const value = meanOverSet(means, values, indicator);
        seen.push(value);
        out[0] = value ?? Number.NaN;
      },
    });
    // (0.25 + 0.75) / 2 over the set's worlds, not / 4 over every planned world
    expect(result.mean.estimate).toBe(0.5);
    // a replicate mean is always a weighted mean of 0.25 and 0.75, or undefined without them
    for (const value of seen) if (value !== null) expect(value >= 0.25 && value <= 0.75).toBe(true);
    expect(result.mean.undefinedReplicates).toBe(seen.filter((v) => v === null).length);
  });
});
