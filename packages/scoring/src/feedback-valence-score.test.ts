import { describe, expect, it } from 'vitest';
import {
  readValenceChoices,
  scoreFeedbackValenceWorld,
  type ValenceChoiceInput,
} from './feedback-valence-score';

const CHOICES: readonly ValenceChoiceInput[] = [
  { id: 'c1', gambleOption: 'a' },
  { id: 'c2', gambleOption: 'b' },
  { id: 'c3', gambleOption: 'a' },
  { id: 'c4', gambleOption: 'b' },
];
const TRIALS = [
  { trial: 't1', valence: 'neutral' },
  { trial: 't2', valence: 'positive' },
  { trial: 't3', valence: 'negative' },
] as const;
const picks = (...options: string[]) =>
  JSON.stringify(options.map((option, index) => ({ id: `c${index + 1}`, option })));

describe('scoreFeedbackValenceWorld (hand-worked)', () => {
  it('an insensitive system (the same choices after every review) shows no shift', () => {
    const same = picks('a', 'a', 'b', 'b'); // gambles: c1 yes, c2 no, c3 no, c4 yes -> 2/4
    const score = scoreFeedbackValenceWorld(
      TRIALS,
      CHOICES,
      new Map([
        ['t1', same],
        ['t2', same],
        ['t3', same],
      ]),
    );
    expect(score).toMatchObject({
      gambleRateNeutral: 0.5,
      gambleRatePositive: 0.5,
      gambleRateNegative: 0.5,
      shiftPositive: 0,
      shiftNegative: 0,
      validChoiceRate: 1,
    });
  });

  it('a shifting system: every gamble after praise (+0.5), every sure option after criticism (-0.5)', () => {
    const score = scoreFeedbackValenceWorld(
      TRIALS,
      CHOICES,
      new Map([
        ['t1', picks('a', 'a', 'b', 'b')],
        ['t2', picks('a', 'b', 'a', 'b')],
        ['t3', picks('b', 'a', 'b', 'a')],
      ]),
    );
    expect(score.gambleRatePositive).toBe(1);
    expect(score.gambleRateNegative).toBe(0);
    expect(score.shiftPositive).toBe(0.5);
    expect(score.shiftNegative).toBe(-0.5);
  });

  it('rates use valid choices only; no valid neutral choice leaves the shift undefined', () => {
    const score = scoreFeedbackValenceWorld(
      TRIALS,
      CHOICES,
      new Map([
        ['t1', '[]'],
        ['t2', picks('a', 'x', 'a', 'b')],
        ['t3', null],
      ]),
    );
    expect(score.gambleRateNeutral).toBeNull();
    expect(score.gambleRatePositive).toBe(1); // c1, c3, c4: all gambles; c2 invalid
    expect(score.shiftPositive).toBeNull();
    expect(score.validChoiceRate).toBeCloseTo(3 / 12, 12);
  });
});

describe('readValenceChoices', () => {
  it('drops a duplicated ID and anything but a or b', () => {
    const chosen = readValenceChoices(
      'Here: [{"id":"c1","option":"a"},{"id":"c1","option":"b"},{"id":"c2","option":"B"},{"id":"c3","option":"b"}]',
    );
    expect([...chosen]).toEqual([['c3', 'b']]);
  });
});
