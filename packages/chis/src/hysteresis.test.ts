import { describe, expect, it } from 'vitest';
import { makeTrajectory } from './__fixtures__/entries';
import { hysteresis } from './hysteresis';

const direct = makeTrajectory('direct', [
  { checkpoint: 0, condition: 'baseline', decisionVector: [0.5, 0.5, 0.5, 0.5] },
  { checkpoint: 1, condition: 'neutral', decisionVector: [0.5, 0.5, 0.5, 0.5] },
  { checkpoint: 2, condition: 'neutral', decisionVector: [0.5, 0.5, 0.5, 0.5] },
  { checkpoint: 3, condition: 'neutral', decisionVector: [0.5, 0.5, 0.5, 0.5] },
]);
const detour = makeTrajectory('detour', [
  { checkpoint: 0, condition: 'baseline', decisionVector: [0.5, 0.5, 0.5, 0.5] },
  { checkpoint: 1, condition: 'intervention', decisionVector: [1, 1, 1, 0] },
  { checkpoint: 2, condition: 'reversal', decisionVector: [0.75, 0.5, 0.5, 0.25] },
  { checkpoint: 3, condition: 'neutral', decisionVector: [0.75, 0.5, 0.5, 0.25] },
]);

describe('hysteresis', () => {
  it('is D between the same current condition reached through different paths', () => {
    // at checkpoint 3 both are neutral: D = (0.25 + 0 + 0 + 0.25) / 4 = 0.125
    expect(hysteresis(direct, detour)).toEqual({
      value: 0.125,
      reason: null,
      checkpoint: 3,
      condition: 'neutral',
      pathA: ['baseline', 'neutral', 'neutral'],
      pathB: ['baseline', 'intervention', 'reversal'],
      used: [
        { trajectoryId: 'direct', checkpoint: 3, eventCount: 6, condition: 'neutral' },
        { trajectoryId: 'detour', checkpoint: 3, eventCount: 6, condition: 'neutral' },
      ],
    });
  });

  it('is null when the current conditions differ', () => {
    expect(hysteresis(direct, detour, { checkpoint: 2 }).reason).toBe(
      'the current conditions differ at checkpoint 2: "neutral" and "reversal"',
    );
  });

  it('is null for two trajectories that took the same path (a replicate distance, not hysteresis)', () => {
    const replicate = makeTrajectory(
      'replicate',
      direct.map((e) => ({
        checkpoint: e.checkpoint,
        condition: e.condition,
        decisionVector: [0.25, 0.5, 0.5, 0.5],
      })),
    );
    expect(hysteresis(direct, replicate).reason).toBe(
      'both trajectories reached checkpoint 3 through the same conditions (baseline > neutral > neutral)',
    );
  });

  it('is null when a trajectory lacks the checkpoint', () => {
    expect(hysteresis(direct, detour, { checkpoint: 7 }).reason).toBe(
      'pathA has no entry at checkpoint 7',
    );
    expect(
      hysteresis(direct, makeTrajectory('x', [{ checkpoint: 9, condition: 'neutral' }])).reason,
    ).toBe('the two trajectories share no checkpoint');
  });
});
