import { ContinuitySchema, ExperienceDivergenceSchema } from '@chi/spec/internal';
import { describe, expect, it } from 'vitest';
import {
  continuity,
  decisionCoordinate,
  decisionDistance,
  decisionVector,
  experienceDivergence,
} from './decision-distance';

describe('decision vectors and distances', () => {
  it('maps A = 0, unknown = 0.5, B = 1 and reports invalid separately', () => {
    expect(['A', 'unknown', 'B', 'invalid'].map((d) => decisionCoordinate(d as never))).toEqual([
      0,
      0.5,
      1,
      null,
    ]);
    expect(decisionVector(['A', 'invalid', 'B', 'invalid'])).toEqual({
      coordinates: [0, null, 1, null],
      invalidIndices: [1, 3],
    });
  });

  it('D is the mean absolute coordinate difference', () => {
    expect(decisionDistance(['A', 'B', 'unknown', 'A'], ['A', 'A', 'B', 'A'])).toEqual({
      value: 0.375,
      coordinates: 4,
      invalidLeft: 0,
      invalidRight: 0,
      reason: null,
    });
  });

  it('D is null with the reason when any coordinate is invalid (no artificial agreement)', () => {
    expect(decisionDistance(['invalid', 'B'], ['invalid', 'B'])).toEqual({
      value: null,
      coordinates: 2,
      invalidLeft: 1,
      invalidRight: 1,
      reason: 'invalid decisions (left 1, right 1): D is undefined',
    });
  });

  it('experience divergence is D(A, B) - D(A, A2), null if either is null', () => {
    const result = experienceDivergence(
      ['A', 'A', 'B', 'unknown'],
      ['B', 'B', 'A', 'unknown'],
      ['A', 'B', 'B', 'unknown'],
    );
    expect(result.differentHistories.value).toBe(0.75);
    expect(result.sameHistory.value).toBe(0.25);
    expect(result.value).toBe(0.5);
    expect(ExperienceDivergenceSchema.safeParse(result).success).toBe(true);
    const broken = experienceDivergence(['A'], ['B'], ['invalid']);
    expect(broken).toMatchObject({ value: null, reason: 'D(A, A2) undefined (invalid decisions)' });
    expect(broken.differentHistories.value).toBe(1);
  });

  it('continuity is 1 - D between two checkpoints', () => {
    const result = continuity(2, ['A', 'B', 'A', 'A'], 3, ['A', 'B', 'A', 'B']);
    expect(result).toMatchObject({ fromCheckpoint: 2, toCheckpoint: 3, value: 0.75 });
    expect(ContinuitySchema.safeParse(result).success).toBe(true);
    expect(continuity(2, ['invalid'], 3, ['A']).value).toBeNull();
  });

  it('rejects mismatched lengths, empty vectors and non-decisions', () => {
    expect(() => decisionDistance(['A'], ['A', 'B'])).toThrow(
      'right: expected 1 decisions like left, found 2',
    );
    expect(() => decisionDistance([], [])).toThrow('left: expected at least one decision');
    expect(() => decisionDistance(['A'], ['C' as never])).toThrow(
      'right[0]: expected A, B, unknown or invalid, found "C"',
    );
    expect(() => continuity(5, ['A'], 3, ['A'])).toThrow(
      'fromCheckpoint: expected a checkpoint 0-4, found 5',
    );
  });
});
