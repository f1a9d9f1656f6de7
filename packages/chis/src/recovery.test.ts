import { describe, expect, it } from 'vitest';
import { makeTrajectory } from './__fixtures__/entries';
import { recovery } from './recovery';

const withPost = (post: number[]) =>
  makeTrajectory('t', [
    { checkpoint: 0, condition: 'baseline', decisionVector: [0.5, 0.5, 0.5, 0.5] },
    { checkpoint: 1, condition: 'neutral', decisionVector: [0.5, 0.5, 0.5, 0.5] },
    { checkpoint: 2, condition: 'fault', decisionVector: [1, 1, 0.5, 0.5] },
    { checkpoint: 3, condition: 'recovery', decisionVector: post },
    { checkpoint: 4, condition: 'neutral', decisionVector: [0.5, 0.5, 0.5, 0.5] },
  ]);

describe('recovery', () => {
  it('is the fraction of the fault-induced deviation undone by the post-fault checkpoint', () => {
    // deviation D(1, 2) = 0.25; remaining D(1, 3) = 0.0625 -> 1 - 0.0625 / 0.25 = 0.75
    const result = recovery(withPost([0.75, 0.5, 0.5, 0.5]));
    expect(result).toMatchObject({
      value: 0.75,
      deviation: 0.25,
      remainingDeviation: 0.0625,
      reason: null,
    });
    expect(result.used.map((ref) => ref.checkpoint)).toEqual([1, 2, 3]);
  });

  it('is 1 for a full return, negative when the response moves further away', () => {
    expect(recovery(withPost([0.5, 0.5, 0.5, 0.5])).value).toBe(1);
    expect(recovery(withPost([1, 1, 1, 0.5])).value).toBe(-0.5);
  });

  it('measures at a later checkpoint on request', () => {
    expect(recovery(withPost([1, 1, 0.5, 0.5]), { post: 4 }).value).toBe(1);
  });

  it('is null when the fault caused no deviation (or none above minDeviation)', () => {
    const noDeviation = makeTrajectory('t', [
      { checkpoint: 1, condition: 'neutral', decisionVector: [0.5] },
      { checkpoint: 2, condition: 'fault', decisionVector: [0.5] },
      { checkpoint: 3, condition: 'recovery', decisionVector: [0.5] },
    ]);
    expect(recovery(noDeviation).reason).toBe(
      'no deviation to recover from: D(pre-fault, fault) = 0 <= 0',
    );
    expect(recovery(withPost([0.75, 0.5, 0.5, 0.5]), { minDeviation: 0.25 }).value).toBeNull();
  });

  it('is null without a fault, an entry before it or after it', () => {
    const entries = withPost([0.5, 0.5, 0.5, 0.5]);
    expect(recovery(entries, { faultCondition: 'outage' }).reason).toBe(
      'no entry with condition "outage"',
    );
    expect(recovery(entries.slice(2)).reason).toBe('no entry before the fault');
    expect(recovery(entries.slice(0, 3)).reason).toBe('no entry after the fault');
  });

  it('rejects a post checkpoint that is not after the fault', () => {
    expect(() => recovery(withPost([0.5, 0.5, 0.5, 0.5]), { post: 1 })).toThrow(/^post:/);
  });
});
