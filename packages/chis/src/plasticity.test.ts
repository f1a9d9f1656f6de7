import { describe, expect, it } from 'vitest';
import { makeTrajectory } from './__fixtures__/entries';
import { plasticity } from './plasticity';

const treated = makeTrajectory('treated', [
  { checkpoint: 0, condition: 'baseline', decisionVector: [0.5, 0.5, 0.5, 0.5] },
  { checkpoint: 1, condition: 'neutral', decisionVector: [0.25, 0.5, 0.75, 0.5] },
  { checkpoint: 2, condition: 'intervention', decisionVector: [0.75, 0.5, 0.25, 0.5] },
]);
const control = makeTrajectory('control', [
  { checkpoint: 0, condition: 'baseline', decisionVector: [0.5, 0.5, 0.5, 0.5] },
  { checkpoint: 1, condition: 'neutral', decisionVector: [0.25, 0.5, 0.75, 0.5] },
  { checkpoint: 2, condition: 'neutral', decisionVector: [0.375, 0.5, 0.75, 0.375] },
]);

describe('plasticity', () => {
  it('is the mean absolute difference-in-differences between the intervention and the control', () => {
    // treated change [0.5, 0, -0.5, 0]; control change [0.125, 0, 0, -0.125]
    // DiD [0.375, 0, -0.5, 0.125] -> mean |.| = 1 / 4
    const result = plasticity(treated, control);
    expect(result).toMatchObject({
      value: 0.25,
      reason: null,
      before: 1,
      after: 2,
      interventionChange: 0.25,
      controlChange: 0.0625,
    });
    expect(result.used.map((ref) => `${ref.trajectoryId}@${ref.checkpoint}`)).toEqual([
      'treated@1',
      'treated@2',
      'control@1',
      'control@2',
    ]);
  });

  it('removes change shared with the control coordinate by coordinate', () => {
    const shifted = (id: string, shift: number, effect: number) =>
      makeTrajectory(id, [
        { checkpoint: 1, condition: 'neutral', decisionVector: [0.25, 0.5] },
        {
          checkpoint: 2,
          condition: effect === 0 ? 'neutral' : 'intervention',
          decisionVector: [0.25 + shift + effect, 0.5 + shift - effect],
        },
      ]);
    expect(plasticity(shifted('t', 0.25, 0.125), shifted('c', 0.25, 0)).value).toBe(0.125);
  });

  it('accepts explicit checkpoints', () => {
    expect(plasticity(treated, control, { before: 0, after: 2 }).value).toBe(0.25);
  });

  it('is null when the control also received the intervention', () => {
    expect(
      plasticity(
        treated,
        makeTrajectory(
          'c2',
          treated.map((e) => ({
            checkpoint: e.checkpoint,
            condition: e.condition,
            decisionVector: e.decisionVector,
          })),
        ),
      ).reason,
    ).toBe('the control also has condition "intervention" at checkpoint 2');
  });

  it('is null with the reason when an entry is missing or invalid', () => {
    expect(plasticity(treated, control.slice(0, 2)).reason).toBe(
      'the control trajectory has no entry at checkpoint 2',
    );
    expect(plasticity(control, treated).reason).toBe(
      'the intervention trajectory has no entry with condition "intervention"',
    );
    const invalid = makeTrajectory('treated', [
      { checkpoint: 1, condition: 'neutral', decisionVector: [null, 0.5, 0.75, 0.5] },
      { checkpoint: 2, condition: 'intervention', decisionVector: [0.75, 0.5, 0.25, 0.5] },
    ]);
    expect(plasticity(invalid, control).reason).toBe(
      'decision coordinate 0 of treated checkpoint 1 is invalid (null)',
    );
  });

  it('refuses the same trajectory as its own control, and before >= after', () => {
    expect(() => plasticity(treated, treated)).toThrow(/^control:/);
    expect(() => plasticity(treated, control, { before: 2, after: 2 })).toThrow(/^before:/);
  });
});
