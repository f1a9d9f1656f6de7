import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { plannedWorlds, worldsInEvery, worldsWhere } from './world-sets';

describe('worldsInEvery', () => {
  it('keeps the worlds complete in every cell, ascending', () => {
    // N=128 lost world 3, N=256 lost world 2: the curve rests on worlds 1 and 4
    expect(
      worldsInEvery([
        [1, 2, 3, 4],
        [4, 1, 2],
        [1, 3, 4],
      ]),
    ).toEqual([1, 4]);
    expect(worldsInEvery([])).toEqual([]);
    expect(worldsInEvery([[2, 2, 1]])).toEqual([1, 2]);
  });

  it('is the set intersection: a subset of every set, holding every common world', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.integer({ min: 0, max: 9 })), { minLength: 1, maxLength: 5 }),
        (sets) => {
          const result = worldsInEvery(sets);
          for (const seed of result) for (const set of sets) expect(set).toContain(seed);
          const common = [...new Set(sets[0])].filter((s) => sets.every((set) => set.includes(s)));
          expect(result).toEqual(common.sort((a, b) => a - b));
        },
      ),
    );
  });
});

describe('worldsWhere', () => {
  it('lists the worlds of the accepted items once, ascending', () => {
    const items = [
      { worldSeed: 13, ok: true },
      { worldSeed: 11, ok: false },
      { worldSeed: 12, ok: true },
      { worldSeed: 13, ok: true },
    ];
    expect(worldsWhere(items, (o) => o.ok)).toEqual([12, 13]);
  });
});

describe('plannedWorlds', () => {
  it('is every planned world, whether or not any block of it is complete', () => {
    expect(plannedWorlds([14, 11, 12], [{ worldSeed: 12 }, { worldSeed: 13 }])).toEqual([
      11, 12, 13, 14,
    ]);
  });
});
