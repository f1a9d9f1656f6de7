import { InvalidArgumentError } from '@chi/spec';
import { ParsedTaskReplySchema } from '@chi/spec/internal';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkpointAccuracy } from './history-score';
import { decisionOf, parseTaskReply } from './task-reply';

describe('parseTaskReply', () => {
  it('classifies {id, answer} entries with the same robustness as probe replies', () => {
    const parsed = parseTaskReply(
      'My answers:\n```json\n{"answers":[{"id":"r1","answer":"42"},{"id":"c1","answer":null},{"id":"i1","answer":3},{"id":"a1","answer":"x","why":"because"},{"id":"a2","answer":"x"},{"id":"a2","answer":"y"},{"id":"zz","answer":"x"}]}\n```',
      ['r1', 'c1', 'i1', 'a1', 'a2', 'r2'],
    );
    expect(parsed.answers).toEqual([
      { id: 'r1', status: 'answered', answer: '42', detail: null },
      { id: 'c1', status: 'abstained', answer: null, detail: null },
      {
        id: 'i1',
        status: 'invalid',
        answer: null,
        detail: 'answer must be a string or null, found number',
      },
      { id: 'a1', status: 'invalid', answer: null, detail: 'unexpected field(s): "why"' },
      { id: 'a2', status: 'duplicate', answer: null, detail: '2 answers with this id: all fail' },
      { id: 'r2', status: 'missing', answer: null, detail: 'no answer with this id' },
    ]);
    expect(parsed.unrequestedCount).toBe(1);
    expect(ParsedTaskReplySchema.safeParse(parsed).success).toBe(true);
  });

  it('fails an item answered in a draft and again in a correction (history and behavior alike)', () => {
    const parsed = parseTaskReply(
      'First try: [{"id":"env-1","answer":"K7QX"}]\nActually: [{"id":"env-1","answer":"M2PD"},{"id":"env-2","answer":"unknown"}]',
      ['env-1', 'env-2'],
    );
    expect(parsed.answers.map((answer) => answer.status)).toEqual(['duplicate', 'answered']);
  });

  it('rejects an empty-string answer rather than scoring it', () => {
    expect(parseTaskReply('[{"id":"r1","answer":" "}]', ['r1']).answers[0]).toMatchObject({
      status: 'invalid',
    });
  });

  it('never throws on arbitrary text', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), (text) => {
        expect(parseTaskReply(text, ['r1', 'r2']).answers).toHaveLength(2);
      }),
      { numRuns: 1000 },
    );
  });
});

describe('decisionOf', () => {
  const answered = (answer: string) => ({
    id: 'e1',
    status: 'answered' as const,
    answer,
    detail: null,
  });
  const labels = { A: 'K7QX', B: 'M2PD' };

  it('reads the shown labels and unknown, after trimming surrounding whitespace only', () => {
    expect(decisionOf(answered('K7QX'), labels)).toBe('A');
    expect(decisionOf(answered(' M2PD\n'), labels)).toBe('B');
    expect(decisionOf(answered('\tunknown '), labels)).toBe('unknown');
  });

  it('reads a JSON-null abstention as the explicit unknown of the task format', () => {
    expect(decisionOf({ id: 'e1', status: 'abstained', answer: null, detail: null }, labels)).toBe(
      'unknown',
    );
  });

  it('counts internal names, letters, positions and other spellings as invalid', () => {
    for (const text of ['a', 'A', 'b', 'B', ' a ', '1', '2', 'first', 'option A', 'Unknown']) {
      expect(decisionOf(answered(text), labels), text).toBe('invalid');
    }
    for (const text of ['k7qx', 'K7 QX', 'K7QX.', '"K7QX"', 'UNKNOWN', 'K7QX or M2PD']) {
      expect(decisionOf(answered(text), labels), text).toBe('invalid');
    }
    expect(decisionOf({ id: 'e1', status: 'missing', answer: null, detail: 'x' }, labels)).toBe(
      'invalid',
    );
    expect(decisionOf({ id: 'e1', status: 'duplicate', answer: null, detail: 'x' }, labels)).toBe(
      'invalid',
    );
  });

  it('accepts an answer exactly when its trimmed text is a shown label or unknown', () => {
    const token = fc.stringMatching(/^[A-Z0-9]{4}$/);
    const padding = fc.constantFrom('', ' ', '\n', '\t', ' \r\n');
    fc.assert(
      fc.property(
        token,
        token,
        fc.string({ maxLength: 8 }),
        padding,
        padding,
        (A, B, said, l, r) => {
          fc.pre(A !== B);
          const decision = decisionOf(answered(`${l}${said}${r}`), { A, B });
          const trimmed = `${l}${said}${r}`.trim();
          const expected =
            trimmed === A
              ? 'A'
              : trimmed === B
                ? 'B'
                : trimmed === 'unknown'
                  ? 'unknown'
                  : 'invalid';
          expect(decision).toBe(expected);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('counts letters and positions as invalid in the checkpoint rates, not as options', () => {
    const environments = [
      { id: 'env-1', labels: { A: 'K7QX', B: 'M2PD' } },
      { id: 'env-2', labels: { A: 'T9RW', B: 'H4ZC' } },
      { id: 'env-3', labels: { A: 'P3JN', B: 'V8LE' } },
      { id: 'env-4', labels: { A: 'Y6DA', B: 'Q5GF' } },
    ];
    const reply =
      '[{"id":"env-1","answer":"A"},{"id":"env-2","answer":"H4ZC"},{"id":"env-3","answer":"2"},{"id":"env-4","answer":" unknown"}]';
    const parsed = parseTaskReply(
      reply,
      environments.map((environment) => environment.id),
    );
    const decisions = environments.map((environment, index) =>
      decisionOf(parsed.answers[index] as (typeof parsed.answers)[number], environment.labels),
    );
    expect(decisions).toEqual(['invalid', 'B', 'invalid', 'unknown']);
    expect(checkpointAccuracy(decisions, ['A', 'B', 'B', 'A'])).toEqual({
      accuracy: { numerator: 1, denominator: 4, rate: 0.25 },
      explicitUnknownRate: { numerator: 1, denominator: 4, rate: 0.25 },
      invalidRate: { numerator: 2, denominator: 4, rate: 0.5 },
    });
  });

  it('refuses labels that collide or cannot be matched', () => {
    expect(() => decisionOf(answered('a'), { A: 'Same', B: 'Same' })).toThrow(InvalidArgumentError);
    expect(() => decisionOf(answered('a'), { A: 'unknown', B: 'c' })).toThrow(
      'labels.A: label "unknown" collides',
    );
    expect(() => decisionOf(answered('a'), { A: 'K7QX', B: ' M2PD' })).toThrow('labels.B');
    expect(() => decisionOf(answered('a'), { A: '', B: 'M2PD' })).toThrow('labels.A');
  });
});
