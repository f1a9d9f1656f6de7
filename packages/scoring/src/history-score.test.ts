import { HistoryScoreSchema } from '@chi/spec';
import { describe, expect, it } from 'vitest';
import { decisions, validAnswers } from './__fixtures__/history-grid';
import { checkpointAccuracy, correctionResponse, scoreHistory } from './history-score';

describe('checkpointAccuracy', () => {
  it('counts correct, explicit unknown and invalid decisions over all environments', () => {
    expect(checkpointAccuracy(['A', 'unknown', 'invalid', 'B'], ['A', 'B', 'B', 'B'])).toEqual({
      accuracy: { numerator: 2, denominator: 4, rate: 0.5 },
      explicitUnknownRate: { numerator: 1, denominator: 4, rate: 0.25 },
      invalidRate: { numerator: 1, denominator: 4, rate: 0.25 },
    });
    expect(checkpointAccuracy(['unknown'], ['unknown']).accuracy.rate).toBe(1);
  });
});

describe('correctionResponse', () => {
  it('is the change in accuracy against the newly valid answers, over the changed environments', () => {
    expect(
      correctionResponse({
        decisionsBefore: ['A', 'A', 'B'],
        decisionsAfter: ['B', 'A', 'B'],
        validBefore: ['A', 'A', 'B'],
        validAfter: ['B', 'B', 'B'],
      }),
    ).toEqual({
      value: 0.5,
      changedEnvironments: [0, 1],
      before: { numerator: 0, denominator: 2, rate: 0 },
      after: { numerator: 1, denominator: 2, rate: 0.5 },
      reason: null,
    });
  });

  it('is null with the reason when the correction changed nothing', () => {
    expect(
      correctionResponse({
        decisionsBefore: ['A'],
        decisionsAfter: ['B'],
        validBefore: ['A'],
        validAfter: ['A'],
      }),
    ).toMatchObject({
      value: null,
      reason: 'no environment changed its warranted answer: there is no correction to respond to',
    });
  });
});

describe('scoreHistory', () => {
  const score = scoreHistory({ validAnswers, decisions });

  it('matches the schema', () => {
    expect(HistoryScoreSchema.safeParse(score).success).toBe(true);
    expect(score.checkpoints.map((c) => c.checkpoint)).toEqual([0, 1, 2, 3, 4]);
  });

  it('reports per-checkpoint accuracy and explicit-unknown rate with their counts', () => {
    expect(score.checkpoints[0]?.histories.A.accuracy).toEqual({
      accuracy: { numerator: 1, denominator: 2, rate: 0.5 },
      explicitUnknownRate: { numerator: 1, denominator: 2, rate: 0.5 },
      invalidRate: { numerator: 0, denominator: 2, rate: 0 },
    });
    expect(score.checkpoints[2]?.histories.B.accuracy.invalidRate).toEqual({
      numerator: 1,
      denominator: 2,
      rate: 0.5,
    });
    expect(score.checkpoints[2]?.histories.B.vector).toEqual({
      coordinates: [1, null],
      invalidIndices: [1],
    });
  });

  it('computes divergence per checkpoint, null where a history is invalid', () => {
    // Checkpoint 1: D(A,B) = 1, D(A,A2) = 0.
    expect(score.checkpoints[1]?.divergence.value).toBe(1);
    // Checkpoint 2: B has an invalid decision.
    expect(score.checkpoints[2]?.divergence.value).toBeNull();
    // Checkpoint 3: D(A,B) = (1 + 0) / 2 = 0.5; D(A,A2) = (0 + 1) / 2 = 0.5.
    expect(score.checkpoints[3]?.divergence.value).toBe(0);
  });

  it('reports continuity 2 -> 3 as primary, 1 -> 2 and 1 -> 3 as supplementary', () => {
    expect(score.continuity.A.primary).toMatchObject({
      fromCheckpoint: 2,
      toCheckpoint: 3,
      value: 0.5,
    });
    expect(
      score.continuity.A.supplementary.map((c) => [c.fromCheckpoint, c.toCheckpoint, c.value]),
    ).toEqual([
      [1, 2, 1],
      [1, 3, 0.5],
    ]);
    expect(score.continuity.B.primary.value).toBeNull();
  });

  it('reports the correction response per history', () => {
    // A: newly valid B, B; checkpoint 3 [A, B] -> 1/2 already; checkpoint 4 [B, A] -> 1/2.
    expect(score.correctionResponse.A).toMatchObject({
      value: 0,
      before: { numerator: 1 },
      after: { numerator: 1 },
    });
    // B: newly valid A, A; checkpoint 3 [B, B] -> 0; checkpoint 4 [A, A] -> 2/2.
    expect(score.correctionResponse.B.value).toBe(1);
    // A2: checkpoint 4 [unknown, B] -> 1/2.
    expect(score.correctionResponse.A2.value).toBe(0.5);
  });

  it('rejects a grid missing a checkpoint or with mismatched widths', () => {
    expect(() =>
      scoreHistory({ validAnswers, decisions: { ...decisions, A2: decisions.A2.slice(0, 4) } }),
    ).toThrow('decisions.A2: expected 5 checkpoints (0-4), found 4');
    expect(() =>
      scoreHistory({
        validAnswers,
        decisions: { ...decisions, B: [...decisions.B.slice(0, 4), ['A']] },
      }),
    ).toThrow('decisions.B[4]: expected 2 environments, found 1');
  });
});
