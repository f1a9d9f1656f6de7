import { describe, expect, it } from 'vitest';
import { makeTrajectory } from './__fixtures__/entries';
import { continuity } from './continuity';

// The pilot's longitudinal schedule: 0 baseline, 1 history, 2 and 3 neutral, 4 correction.
const pilotLike = makeTrajectory('w1-A', [
  { checkpoint: 0, condition: 'baseline', decisionVector: [0.5, 0.5, 0.5, 0.5] },
  { checkpoint: 1, condition: 'history', decisionVector: [0, 0.5, 1, 1] },
  { checkpoint: 2, condition: 'neutral', decisionVector: [0, 0.5, 1, 0.5] },
  { checkpoint: 3, condition: 'neutral', decisionVector: [0, 1, 1, 0.5] },
  { checkpoint: 4, condition: 'correction', decisionVector: [1, 1, 0, 0.5] },
]);

describe('continuity', () => {
  it('is 1 - D between the neutral checkpoints 2 and 3', () => {
    // D(2, 3) = (0 + 0.5 + 0 + 0) / 4 = 0.125
    const result = continuity(pilotLike);
    expect(result.value).toBe(0.875);
    expect(result.reason).toBeNull();
    expect(result.pairs).toEqual([
      {
        from: { trajectoryId: 'w1-A', checkpoint: 2, eventCount: 4, condition: 'neutral' },
        to: { trajectoryId: 'w1-A', checkpoint: 3, eventCount: 6, condition: 'neutral' },
        distance: 0.125,
        continuity: 0.875,
        reason: null,
      },
    ]);
    expect(result.used.map((ref) => ref.checkpoint)).toEqual([2, 3]);
  });

  it('averages over every adjacent neutral pair, skipping pairs broken by another condition', () => {
    const entries = makeTrajectory('t', [
      { checkpoint: 1, condition: 'neutral', decisionVector: [0, 0] },
      { checkpoint: 2, condition: 'neutral', decisionVector: [0, 0.5] }, // D = 0.25
      { checkpoint: 3, condition: 'neutral', decisionVector: [1, 0.5] }, // D = 0.5
      { checkpoint: 4, condition: 'fault', decisionVector: [1, 1] },
      { checkpoint: 5, condition: 'neutral', decisionVector: [0, 0] }, // 3-5 is not a pair
    ]);
    const result = continuity(entries);
    expect(result.pairs.map((pair) => pair.continuity)).toEqual([0.75, 0.5]);
    expect(result.value).toBe(0.625);
  });

  it('uses entries in checkpoint order whatever the input order', () => {
    expect(continuity([...pilotLike].reverse()).value).toBe(0.875);
  });

  it('compares named profile features on request', () => {
    const entries = makeTrajectory('t', [
      { checkpoint: 2, condition: 'neutral', profile: { accuracy: 0.75 } },
      { checkpoint: 3, condition: 'neutral', profile: { accuracy: 0.5 } },
    ]);
    expect(continuity(entries, { response: { profileFeatures: ['accuracy'] } }).value).toBe(0.75);
  });

  it('is null when an invalid coordinate makes a pair undefined, never artificially high', () => {
    const entries = makeTrajectory('t', [
      { checkpoint: 2, condition: 'neutral', decisionVector: [0, null] },
      { checkpoint: 3, condition: 'neutral', decisionVector: [0, 1] },
    ]);
    const result = continuity(entries);
    expect(result.value).toBeNull();
    expect(result.reason).toBe(
      'distance between checkpoints 2 and 3 is undefined: decision coordinate 1 of t checkpoint 2 is invalid (null)',
    );
    expect(result.pairs[0]?.distance).toBeNull();
  });

  it('is null without two adjacent neutral entries', () => {
    const result = continuity(pilotLike.filter((entry) => entry.checkpoint !== 3));
    expect(result).toMatchObject({
      value: null,
      reason: 'no two adjacent entries both have a neutral condition (neutral)',
      pairs: [],
    });
  });

  it('refuses duplicate positions and mixed trajectories', () => {
    expect(() => continuity([...pilotLike, pilotLike[2]!])).toThrow(
      /several entries at checkpoint 2/,
    );
    expect(() =>
      continuity([
        ...pilotLike,
        ...makeTrajectory('other', [{ checkpoint: 9, condition: 'neutral' }]),
      ]),
    ).toThrow(/one trajectory/);
  });
});
