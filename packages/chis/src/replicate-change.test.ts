import { InvalidArgumentError } from '@chi/spec';
import { describe, expect, it } from 'vitest';
import { makeTrajectory } from './__fixtures__/entries';
import { plasticity } from './plasticity';
import { replicateChange } from './replicate-change';

const corrected = (id: string, after: number[]) =>
  makeTrajectory(id, [
    { checkpoint: 4, condition: 'neutral', decisionVector: [0, 0.5, 1, 0] },
    { checkpoint: 5, condition: 'intervention', decisionVector: after },
  ]);

describe('replicateChange (the plasticity floor)', () => {
  it('is the mean absolute difference between two same-treatment replicates’ changes', () => {
    // changes [1, 0.5, -1, 0] and [1, -0.5, 0, 1]: |.| of differences 0, 1, 1, 1 -> 3 / 4
    const result = replicateChange(corrected('one', [1, 1, 0, 0]), corrected('two', [1, 0, 1, 1]), {
      before: 4,
      after: 5,
    });
    expect(result.value).toBe(0.75);
    expect(result.used.map((ref) => `${ref.trajectoryId}@${ref.checkpoint}`)).toEqual([
      'one@4',
      'one@5',
      'two@4',
      'two@5',
    ]);
  });

  it('accepts two replicates that both carry the intervention condition, which plasticity refuses', () => {
    const one = corrected('one', [1, 1, 0, 0]);
    const two = corrected('two', [1, 1, 0, 0]);
    expect(plasticity(one, two, { before: 4, after: 5 }).value).toBeNull();
    expect(replicateChange(one, two, { before: 4, after: 5 }).value).toBe(0);
  });

  it('is null with the reason when a checkpoint is missing', () => {
    const result = replicateChange(corrected('one', [1, 1, 0, 0]), corrected('two', [1, 1, 0, 0]), {
      before: 3,
      after: 5,
    });
    expect(result.value).toBeNull();
    expect(result.reason).toBe('the first trajectory has no entry at checkpoint 3');
  });

  it('rejects one trajectory twice and a reversed window', () => {
    const one = corrected('one', [1, 1, 0, 0]);
    expect(() => replicateChange(one, one, { before: 4, after: 5 })).toThrow(InvalidArgumentError);
    expect(() =>
      replicateChange(one, corrected('two', [0, 0, 0, 0]), { before: 5, after: 4 }),
    ).toThrow(/before/);
  });
});
