import {
  type AnswerKeyEntry,
  InvalidArgumentError,
  MemoryScoreSchema,
  ValidationError,
} from '@chi/spec';
import type { ClassifiedAnswer } from '@chi/spec/internal';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ANSWER_KEY,
  abstained,
  answered,
  failed,
  HAND_WORKED_ANSWERS,
  PROBE_IDS,
  parsedOf,
} from './__fixtures__/tiny-world';
import { scoreMemoryProbes } from './memory-score';
import { parseProbeReply } from './probe-reply';

describe('scoreMemoryProbes', () => {
  it('computes every ratio, factor and Q_M of the hand-worked reply', () => {
    const score = scoreMemoryProbes(ANSWER_KEY, parsedOf(HAND_WORKED_ANSWERS));
    expect(score.strata).toEqual({
      r: { numerator: 2, denominator: 2, rate: 1 },
      t: { numerator: 1, denominator: 2, rate: 0.5 },
      s: { numerator: 1, denominator: 2, rate: 0.5 },
      u: { numerator: 1, denominator: 2, rate: 0.5 },
      i: { numerator: 1, denominator: 2, rate: 0.5 },
      f: { numerator: 1, denominator: 2, rate: 0.5 },
    });
    expect(score.lures).toEqual({
      total: 2,
      correctAbstention: 1,
      unsupportedAffirmative: 1,
      invalid: 0,
      f: { numerator: 1, denominator: 2, rate: 0.5 },
      falseAffirmativeRate: { numerator: 1, denominator: 2, rate: 0.5 },
      invalidLureRate: { numerator: 0, denominator: 2, rate: 0 },
    });
    expect(score.factors).toEqual({ r: 1, t: 0.5, s: 0.5, u: 0.5, i: 0.5, oneMinusF: 0.5 });
    // Q_M = 1^(1/6) * 0.5^(5/6) = 2^(-5/6)
    expect(score.qualityScore).toBeCloseTo(0.5612310241546865, 15);
    expect(MemoryScoreSchema.safeParse(score).success).toBe(true);
  });

  it('scores parsed model text end to end', () => {
    const reply = `Here you go:\n\`\`\`json\n${JSON.stringify(
      HAND_WORKED_ANSWERS.map((a) => ({ id: a.id, value: a.value, source: a.source })),
    )}\n\`\`\``;
    const score = scoreMemoryProbes(ANSWER_KEY, parseProbeReply(reply, PROBE_IDS));
    expect(score.factors).toEqual({ r: 1, t: 0.5, s: 0.5, u: 0.5, i: 0.5, oneMinusF: 0.5 });
  });

  it('gives r = 0 and Q_M = 0 when the system abstains on everything', () => {
    const score = scoreMemoryProbes(ANSWER_KEY, parsedOf(PROBE_IDS.map(abstained)));
    expect(score.factors).toEqual({ r: 0, t: 0.5, s: 0, u: 0, i: 0, oneMinusF: 1 });
    expect(score.lures.correctAbstention).toBe(2);
    expect(score.qualityScore).toBe(0);
  });

  it('splits lure outcomes into mutually exclusive categories', () => {
    const lureKey: AnswerKeyEntry[] = ['l1', 'l2', 'l3', 'l4', 'l5'].map((id) => ({
      id,
      stratum: 'f',
      key: `absent-${id}`,
      asOf: null,
      expectedValue: null,
      expectedSource: null,
    }));
    const score = scoreMemoryProbes(
      lureKey,
      parsedOf([
        abstained('l1'),
        answered('l2', '12345678', 'made-up'),
        failed('l3', 'invalid'),
        failed('l4', 'missing'),
        failed('l5', 'duplicate'),
      ]),
    );
    expect(score.lures).toEqual({
      total: 5,
      correctAbstention: 1,
      unsupportedAffirmative: 1,
      invalid: 3,
      f: { numerator: 4, denominator: 5, rate: 0.8 },
      falseAffirmativeRate: { numerator: 1, denominator: 5, rate: 0.2 },
      invalidLureRate: { numerator: 3, denominator: 5, rate: 0.6 },
    });
    // Only lures: the other strata are empty, so Q_M is undefined and the factors are placeholders.
    expect(score.strata.r).toEqual({ numerator: 0, denominator: 0, rate: null });
    expect(score.qualityScore).toBeNull();
  });

  it('passes an unknown as-of expectation only on abstention', () => {
    const key = ANSWER_KEY.filter((e) => e.id === 't2');
    expect(scoreMemoryProbes(key, parsedOf([abstained('t2')])).strata.t.numerator).toBe(1);
    expect(
      scoreMemoryProbes(key, parsedOf([answered('t2', 'eeee0001', 'ledger-e')])).strata.t.numerator,
    ).toBe(0);
  });

  it('scores content strata by value only, and s by value and source', () => {
    const key = ANSWER_KEY.filter((e) => e.id === 'r1' || e.id === 's1');
    const score = scoreMemoryProbes(
      key,
      parsedOf([answered('r1', 'aaaa0001', 'other'), answered('s1', 'aaaa0001', 'Ledger-a')]),
    );
    expect(score.strata.r.numerator).toBe(1);
    expect(score.strata.s.numerator).toBe(0); // sources compare exactly after trimming
  });

  it('passes alphas through to Q_M', () => {
    const alphas = { r: 0.5, t: 0.1, s: 0.1, u: 0.1, i: 0.1, oneMinusF: 0.1 };
    const score = scoreMemoryProbes(ANSWER_KEY, parsedOf(HAND_WORKED_ANSWERS), alphas);
    expect(score.qualityScore).toBeCloseTo(0.5 ** 0.5, 15);
  });

  it('carries the unrequested count from the parsed reply', () => {
    const parsed = { ...parsedOf(HAND_WORKED_ANSWERS), unrequestedCount: 3 };
    expect(scoreMemoryProbes(ANSWER_KEY, parsed).unrequestedCount).toBe(3);
  });

  it('does not depend on the order of the key or of the answers', () => {
    const statusArb = (id: string) =>
      fc.oneof(
        fc.constant(abstained(id)),
        fc.constant(failed(id, 'invalid')),
        fc.constant(failed(id, 'missing')),
        fc
          .constantFrom(
            'aaaa0001',
            'cccc0002',
            'dddd0001',
            'bbbb0002',
            'dddd0002',
            'abab0001',
            'ffff0000',
          )
          .chain((value) =>
            fc
              .constantFrom('ledger-a', 'registry-c', 'registry-b')
              .map((source) => answered(id, value, source)),
          ),
      );
    const answersArb = fc.tuple(...PROBE_IDS.map(statusArb)) as fc.Arbitrary<ClassifiedAnswer[]>;
    fc.assert(
      fc.property(answersArb, fc.nat(), (answers, seed) => {
        const rotate = <T>(list: readonly T[]) =>
          list.map((_, k) => list[(k + seed) % list.length] as T);
        const a = scoreMemoryProbes(ANSWER_KEY, parsedOf(answers));
        const b = scoreMemoryProbes(rotate(ANSWER_KEY), parsedOf([...rotate(answers)].reverse()));
        expect(b).toEqual(a);
      }),
      { numRuns: 300 },
    );
  });

  it('refuses inconsistent inputs with errors naming the field', () => {
    expect(() => scoreMemoryProbes(ANSWER_KEY, parsedOf(HAND_WORKED_ANSWERS.slice(1)))).toThrow(
      'answerKey[0]: probe "r1" has no classification in parsed.answers',
    );
    expect(() => scoreMemoryProbes(ANSWER_KEY.slice(1), parsedOf(HAND_WORKED_ANSWERS))).toThrow(
      'parsed.answers: probe "r1" is not in the answer key',
    );
    expect(() =>
      scoreMemoryProbes(
        [...ANSWER_KEY, ANSWER_KEY[0] as AnswerKeyEntry],
        parsedOf(HAND_WORKED_ANSWERS),
      ),
    ).toThrow(InvalidArgumentError);
    const badLure = [
      { ...(ANSWER_KEY[10] as AnswerKeyEntry), expectedValue: '00000000', expectedSource: 'x' },
    ];
    expect(() => scoreMemoryProbes(badLure, parsedOf([abstained('f1')]))).toThrow(
      'answerKey[0].expectedValue: a lure (stratum f) has no recorded value',
    );
    expect(() =>
      scoreMemoryProbes(
        [{ ...(ANSWER_KEY[0] as AnswerKeyEntry), expectedValue: 'XYZ' }],
        parsedOf([abstained('r1')]),
      ),
    ).toThrow(ValidationError);
    expect(() =>
      scoreMemoryProbes(
        ANSWER_KEY.slice(0, 1),
        parsedOf([{ id: 'r1', status: 'answered', value: null, source: null, detail: null }]),
      ),
    ).toThrow('parsed.answers[0]: status answered requires value and source to be strings');
  });
});
