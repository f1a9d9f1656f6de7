import { BehaviorScoreSchema, type ClassifiedTaskAnswer } from '@chi/spec';
import {
  BEHAVIOR_TRACE_REASONS,
  BehaviorItemTraceSchema,
  type BehaviorTraceReason,
} from '@chi/spec/internal';
import { describe, expect, it } from 'vitest';
import { ANSWERS, ITEM_SET, said, status } from './__fixtures__/behavior-set';
import { scoreBehavior, traceBehaviorItems } from './behavior-score';

const withAnswer = (answer: ClassifiedTaskAnswer) =>
  ANSWERS.map((a) => (a.id === answer.id ? answer : a));
const reasonOf = (answer: ClassifiedTaskAnswer) =>
  traceBehaviorItems(ITEM_SET, withAnswer(answer)).find((t) => t.itemId === answer.id)?.reason;

describe('scoreBehavior', () => {
  const score = scoreBehavior(ITEM_SET, ANSWERS);

  it('scores R by exact (normalized) answers and C, I, A by choice', () => {
    expect(BehaviorScoreSchema.safeParse(score).success).toBe(true);
    expect(score.axes.R).toEqual({
      axis: 'R',
      accuracy: { numerator: 2, denominator: 2, rate: 1 },
      answered: 2,
      abstained: 0,
      invalid: 0,
      missing: 0,
      duplicate: 0,
      notAnOption: 0,
    });
    expect(score.axes.C.accuracy).toEqual({ numerator: 0, denominator: 1, rate: 0 });
    expect(score.axes.I.accuracy).toEqual({ numerator: 0, denominator: 1, rate: 0 });
    expect(score.axes.A).toMatchObject({
      accuracy: { numerator: 1, denominator: 4, rate: 0.25 },
      notAnOption: 1,
      answered: 4,
    });
  });

  it('reports the paired frame-induced choice change as a rate over pairs with two valid choices', () => {
    expect(score.frameInducedChange).toEqual({
      rate: { numerator: 1, denominator: 1, rate: 1 },
      pairs: [
        {
          pairId: 'p1',
          positiveItemId: 'a-1p',
          negativeItemId: 'a-1n',
          positiveChoice: 1,
          negativeChoice: 0,
          changed: true,
        },
        {
          pairId: 'p2',
          positiveItemId: 'a-2p',
          negativeItemId: 'a-2n',
          positiveChoice: 0,
          negativeChoice: null,
          changed: null,
        },
      ],
      interpretation: 'rate of frame-induced choice changes; neither higher nor lower is better',
    });
  });

  it('compares option positions, not wording, across the two frames', () => {
    const same = scoreBehavior(ITEM_SET, withAnswer(said('a-1n', 'gamble plan')));
    expect(same.frameInducedChange.pairs[0]).toMatchObject({
      positiveChoice: 1,
      negativeChoice: 1,
      changed: false,
    });
    expect(same.frameInducedChange.rate).toEqual({ numerator: 0, denominator: 1, rate: 0 });
  });

  it('refuses inconsistent item sets and answers, naming the field', () => {
    expect(() => scoreBehavior(ITEM_SET, ANSWERS.slice(1))).toThrow(
      'answers: item "r-1" has no classified answer',
    );
    expect(() => scoreBehavior(ITEM_SET, [...ANSWERS, said('zz', 'x')])).toThrow(
      'answers[8].id: item "zz" is not in the item set',
    );
    const noConstraints = {
      ...ITEM_SET,
      key: ITEM_SET.key.map((k) => (k.itemId === 'i-1' ? { ...k, constraints: [] } : k)),
    };
    expect(() => scoreBehavior(noConstraints, ANSWERS)).toThrow(
      'itemSet.key[3].constraints: an I item must declare its constraints',
    );
    const badExpected = {
      ...ITEM_SET,
      key: ITEM_SET.key.map((k) => (k.itemId === 'c-1' ? { ...k, expected: 'sell' } : k)),
    };
    expect(() => scoreBehavior(badExpected, ANSWERS)).toThrow(
      'itemSet.key[2].expected: expected answer "sell" is not one of the item\'s options',
    );
    const lonely = {
      items: ITEM_SET.items.filter((i) => i.id !== 'a-2n'),
      key: ITEM_SET.key.filter((k) => k.itemId !== 'a-2n'),
    };
    expect(() =>
      scoreBehavior(
        lonely,
        ANSWERS.filter((a) => a.id !== 'a-2n'),
      ),
    ).toThrow('an A pair needs exactly one positive and one negative item');
    const rAsChoice = {
      ...ITEM_SET,
      items: ITEM_SET.items.map((i) =>
        i.id === 'r-1' ? { ...i, answerFormat: 'choice' as const, options: ['42', '43'] } : i,
      ),
    };
    expect(() => scoreBehavior(rAsChoice, ANSWERS)).toThrow(
      'itemSet.items[0].answerFormat: axis R items are exact-answer items, found choice',
    );
  });
});

describe('traceBehaviorItems: one hand-built case per reason', () => {
  const cases: [BehaviorTraceReason, ClassifiedTaskAnswer][] = [
    ['correct', said('r-1', ' 42 ')],
    ['wrong_exact_answer', said('r-1', '41')],
    ['wrong_exact_answer', said('r-2', 'blue triangle')], // exact answers keep case
    ['wrong_choice', said('c-1', 'wait')],
    ['correct', said('c-1', ' ASK for  the missing price')], // choices ignore case and spacing
    ['constraint_violated', said('i-1', 'route east')],
    ['lower_expected_value_choice', said('a-1p', 'safe plan')],
    ['not_an_option', said('c-1', 'call a friend')],
    ['abstained', status('r-1', 'abstained')],
    ['invalid_answer', status('c-1', 'invalid')],
    ['missing_answer', status('i-1', 'missing')],
    ['duplicate_answer', status('a-1n', 'duplicate')],
  ];

  it('covers the whole taxonomy', () => {
    expect(new Set(cases.map(([reason]) => reason))).toEqual(new Set(BEHAVIOR_TRACE_REASONS));
  });

  for (const [reason, answer] of cases) {
    it(`${reason}: ${answer.id} ${answer.status} ${JSON.stringify(answer.answer)}`, () => {
      expect(reasonOf(answer)).toBe(reason);
    });
  }

  it('traces carry the expected answer, constraints and the chosen option; verdicts agree with accuracy', () => {
    const traces = traceBehaviorItems(ITEM_SET, ANSWERS);
    for (const trace of traces) expect(BehaviorItemTraceSchema.safeParse(trace).success).toBe(true);
    expect(traces.find((t) => t.itemId === 'i-1')).toMatchObject({
      expected: 'route south',
      constraints: ['arrive before 18:00', 'cost under 40'],
      chosenOption: 0,
      verdict: 'fail',
      reason: 'constraint_violated',
    });
    const score = scoreBehavior(ITEM_SET, ANSWERS);
    for (const axis of ['R', 'C', 'A', 'I'] as const) {
      expect(traces.filter((t) => t.axis === axis && t.verdict === 'pass').length).toBe(
        score.axes[axis].accuracy.numerator,
      );
    }
  });
});
