import { describe, expect, it } from 'vitest';
import { makeTrajectory } from './__fixtures__/entries';
import { memoryAccumulation } from './memory-accumulation';

const entries = makeTrajectory('t', [
  { checkpoint: 0, condition: 'baseline', eventCount: 0, profile: { retrievedKeys: 0 } },
  { checkpoint: 1, condition: 'ingest', eventCount: 2, profile: { retrievedKeys: 3 } },
  { checkpoint: 2, condition: 'ingest', eventCount: 4, profile: { retrievedKeys: 4 } },
  { checkpoint: 3, condition: 'ingest', eventCount: 6, profile: { retrievedKeys: 8 } },
]);

describe('memoryAccumulation', () => {
  it('is the least-squares slope of the indicator per event', () => {
    // mean x 3, mean y 3.75; Sxx = 20, Sxy = 25 -> 1.25 per event
    const result = memoryAccumulation(entries, { feature: 'retrievedKeys' });
    expect(result).toMatchObject({
      value: 1.25,
      totalChange: 8,
      eventSpan: 6,
      feature: 'retrievedKeys',
      reason: null,
    });
    expect(result.points.map((point) => [point.eventCount, point.value])).toEqual([
      [0, 0],
      [2, 3],
      [4, 4],
      [6, 8],
    ]);
  });

  it('restricts to conditions on request', () => {
    // ingest points (2,3) (4,4) (6,8): Sxx = 8, Sxy = 10 -> 1.25; totalChange 5
    expect(
      memoryAccumulation(entries, { feature: 'retrievedKeys', conditions: ['ingest'] }),
    ).toMatchObject({ value: 1.25, totalChange: 5, eventSpan: 4 });
  });

  it('is null when the indicator is missing or null anywhere, or there is no event span', () => {
    const gap = makeTrajectory('t', [
      { checkpoint: 0, condition: 'baseline', profile: { retrievedKeys: 0 } },
      { checkpoint: 1, condition: 'ingest', profile: { retrievedKeys: null } },
    ]);
    expect(memoryAccumulation(gap, { feature: 'retrievedKeys' }).reason).toBe(
      'profile feature "retrievedKeys" of t checkpoint 1 is null (undefined indicator)',
    );
    expect(memoryAccumulation(entries, { feature: 'accuracy' }).reason).toBe(
      'profile feature "accuracy" of t checkpoint 0 is missing',
    );
    const flat = makeTrajectory('t', [
      { checkpoint: 0, condition: 'a', eventCount: 3, profile: { k: 1 } },
      { checkpoint: 1, condition: 'a', eventCount: 3, profile: { k: 2 } },
    ]);
    expect(memoryAccumulation(flat, { feature: 'k' })).toMatchObject({
      value: null,
      totalChange: 1,
      eventSpan: 0,
    });
    expect(memoryAccumulation(entries.slice(0, 1), { feature: 'retrievedKeys' }).reason).toBe(
      'needs at least two entries, found 1',
    );
  });

  it('requires a feature name', () => {
    expect(() => memoryAccumulation(entries, { feature: '' })).toThrow(/^feature:/);
  });
});
