import { InvalidArgumentError, ParsedTaskReplySchema } from '@chi/spec';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
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

  it('reads A, B and unknown (normalized), and labels when given', () => {
    expect(decisionOf(answered(' a '))).toBe('A');
    expect(decisionOf(answered('B'))).toBe('B');
    expect(decisionOf(answered('Unknown'))).toBe('unknown');
    expect(
      decisionOf(answered('Kestrel  Freight'), { A: 'Kestrel Freight', B: 'Osprey Lines' }),
    ).toBe('A');
    expect(decisionOf(answered('osprey lines'), { A: 'Kestrel Freight', B: 'Osprey Lines' })).toBe(
      'B',
    );
  });

  it('treats a null abstention as an explicit unknown and everything else as invalid', () => {
    expect(decisionOf({ id: 'e1', status: 'abstained', answer: null, detail: null })).toBe(
      'unknown',
    );
    expect(decisionOf(answered('probably A'))).toBe('invalid');
    expect(decisionOf({ id: 'e1', status: 'missing', answer: null, detail: 'x' })).toBe('invalid');
    expect(decisionOf({ id: 'e1', status: 'duplicate', answer: null, detail: 'x' })).toBe(
      'invalid',
    );
  });

  it('refuses labels that collide', () => {
    expect(() => decisionOf(answered('a'), { A: 'Same', B: 'same' })).toThrow(InvalidArgumentError);
    expect(() => decisionOf(answered('a'), { A: 'b', B: 'c' })).toThrow(
      'labels.A: label "b" collides',
    );
  });
});
