import { InvalidArgumentError } from '@chi/spec';
import { ParsedProbeReplySchema } from '@chi/spec/internal';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseProbeReply } from './probe-reply';

const IDS = ['q1', 'q2', 'q3'];
const statuses = (reply: string | Uint8Array, ids = IDS) =>
  parseProbeReply(reply, ids).answers.map((answer) => answer.status);

describe('parseProbeReply: where the answer set sits', () => {
  it('reads a bare top-level array', () => {
    const parsed = parseProbeReply(
      '[{"id":"q1","value":"0a1b2c3d","source":"ledger-7"},{"id":"q2","value":null,"source":null}]',
      IDS,
    );
    expect(parsed).toEqual({
      answers: [
        { id: 'q1', status: 'answered', value: '0a1b2c3d', source: 'ledger-7', detail: null },
        { id: 'q2', status: 'abstained', value: null, source: null, detail: null },
        {
          id: 'q3',
          status: 'missing',
          value: null,
          source: null,
          detail: 'no answer with this id',
        },
      ],
      foundAnswerSet: true,
      unrequestedCount: 0,
      notes: [],
    });
    expect(ParsedProbeReplySchema.safeParse(parsed).success).toBe(true);
  });

  it('reads an object with an answers array and notes ignored wrapper fields', () => {
    const parsed = parseProbeReply(
      '{"answers":[{"id":"q1","value":"0a1b2c3d","source":"s"}],"confidence":0.9}',
      IDS,
    );
    expect(parsed.answers[0]?.status).toBe('answered');
    expect(parsed.notes).toEqual(['ignored top-level field(s) beside "answers": "confidence"']);
  });

  it('finds JSON inside a markdown fence surrounded by prose with braces and quotes', () => {
    const reply = [
      'Sure! I checked my notes {carefully} and "quoted" things.',
      '```json',
      '[{"id":"q1","value":"0a1b2c3d","source":"ledger [7]"}]',
      '```',
      'Let me know if you need {anything} else.',
    ].join('\n');
    const parsed = parseProbeReply(reply, IDS);
    expect(parsed.answers[0]).toMatchObject({ status: 'answered', source: 'ledger [7]' });
  });

  it('looks inside JSON that is not an answer set', () => {
    const parsed = parseProbeReply(
      '{"result":{"answers":[{"id":"q1","value":null,"source":null}]}}',
      IDS,
    );
    expect(parsed.foundAnswerSet).toBe(true);
    expect(parsed.answers[0]?.status).toBe('abstained');
  });

  it('ignores an echoed format example whose IDs are placeholders, not requested IDs', () => {
    const reply =
      'Format: [{"id":"<question id>","value":"<hex>","source":"<source>"}]\nAnswer: [{"id":"q1","value":"0a1b2c3d","source":"s"},{"id":"q2","value":null,"source":null}]';
    const parsed = parseProbeReply(reply, IDS);
    expect(parsed.answers[0]).toMatchObject({ status: 'answered', value: '0a1b2c3d' });
    expect(parsed.answers[1]?.status).toBe('abstained');
    expect(parsed.unrequestedCount).toBe(1);
    expect(parsed.notes[0]).toBe(
      'found 2 answer sets; all their answers count, and 0 requested ID(s) answered more than once fail as duplicates',
    );
  });

  it('fails as duplicates the IDs that a draft and a correction both answer (never reconciled)', () => {
    const reply =
      'Draft: [{"id":"q1","value":"11111111","source":"s"}]\nCorrected: [{"id":"q1","value":"22222222","source":"s"},{"id":"q2","value":null,"source":null}]';
    const parsed = parseProbeReply(reply, IDS);
    expect(parsed.answers.map((answer) => answer.status)).toEqual([
      'duplicate',
      'abstained',
      'missing',
    ]);
    expect(parsed.answers[0]).toMatchObject({
      value: null,
      detail: '2 answers with this id: all fail',
    });
    expect(parsed.notes[0]).toBe(
      'found 2 answer sets; all their answers count, and 1 requested ID(s) answered more than once fail as duplicates',
    );
  });

  it('fails every ID of an answer set given twice, even when both copies agree', () => {
    const set =
      '[{"id":"q1","value":"0a1b2c3d","source":"s"},{"id":"q2","value":null,"source":null}]';
    expect(statuses(`Here: ${set}\n\`\`\`json\n${set}\n\`\`\``)).toEqual([
      'duplicate',
      'duplicate',
      'missing',
    ]);
    expect(statuses(`{"answers": ${set}, "final": ${set}}`)).toEqual([
      'duplicate',
      'duplicate',
      'missing',
    ]);
  });

  it('counts an answer set nested in other JSON like any other', () => {
    const reply =
      '{"answers":[{"id":"q1","value":null,"source":null}],"revised":{"answers":[{"id":"q1","value":"0a1b2c3d","source":"s"}]}}';
    expect(statuses(reply)).toEqual(['duplicate', 'missing', 'missing']);
  });

  it('reports missing for every ID when there is no JSON at all', () => {
    const parsed = parseProbeReply('I do not remember anything.', IDS);
    expect(parsed.foundAnswerSet).toBe(false);
    expect(parsed.answers.map((a) => a.status)).toEqual(['missing', 'missing', 'missing']);
    expect(parsed.notes).toEqual([
      'no JSON answer set found: expected a JSON array of answers, or an object with an "answers" array',
    ]);
  });

  it('says when JSON was found but none of it is an answer set', () => {
    const parsed = parseProbeReply('{"q1": {"value": "0a1b2c3d", "source": "s"}}', IDS);
    expect(parsed.foundAnswerSet).toBe(false);
    expect(parsed.notes[0]).toMatch(/^found 2 JSON value\(s\) but no answer set/);
  });

  it('treats truncated JSON as no answer set', () => {
    expect(statuses('[{"id":"q1","value":"0a1b2c3d","source":"s"},{"id":"q2","val')).toEqual([
      'missing',
      'missing',
      'missing',
    ]);
  });
});

describe('parseProbeReply: strict answer shape', () => {
  const one = (answer: string) => parseProbeReply(`[${answer}]`, ['q1']).answers[0];

  it('both null is an abstention; one null is invalid', () => {
    expect(one('{"id":"q1","value":null,"source":null}')?.status).toBe('abstained');
    expect(one('{"id":"q1","value":"0a1b2c3d","source":null}')).toMatchObject({
      status: 'invalid',
      detail: 'source is null but the other field is not: both must be null to abstain',
    });
    expect(one('{"id":"q1","value":null,"source":"s"}')?.status).toBe('invalid');
  });

  it('rejects extra, missing and repeated fields', () => {
    expect(one('{"id":"q1","value":"0a1b2c3d","source":"s","confidence":1}')).toMatchObject({
      status: 'invalid',
      detail: 'unexpected field(s): "confidence"',
    });
    expect(one('{"id":"q1","value":"0a1b2c3d"}')).toMatchObject({
      status: 'invalid',
      detail: 'missing field(s): "source"',
    });
    expect(one('{"id":"q1","value":"0a1b2c3d","source":"s","value":"ffffffff"}')).toMatchObject({
      status: 'invalid',
      detail: 'field(s) given more than once: "value"',
    });
  });

  it('rejects wrong types, including a numeric id that spells the requested one', () => {
    expect(one('{"id":"q1","value":12345678,"source":"s"}')).toMatchObject({
      status: 'invalid',
      detail: 'value must be a string or null, found number',
    });
    expect(
      parseProbeReply('[{"id":17,"value":"0a1b2c3d","source":"s"}]', ['17']).answers[0],
    ).toMatchObject({
      status: 'invalid',
      detail: 'id must be a string, found number',
    });
    expect(one('{"id":"q1","value":["0a1b2c3d"],"source":{"doc":1}}')?.detail).toBe(
      'value must be a string or null, found array; source must be a string or null, found object',
    );
  });

  it('rejects empty strings instead of reading them as an affirmative answer', () => {
    expect(one('{"id":"q1","value":"  ","source":"s"}')).toMatchObject({
      status: 'invalid',
      detail: 'value is an empty string (use null for both value and source to abstain)',
    });
  });

  it('keeps answered strings exactly as given (comparison normalizes later)', () => {
    expect(one('{"id":"q1","value":" 0A1B2C3D ","source":" Ledger "}')).toMatchObject({
      value: ' 0A1B2C3D ',
      source: ' Ledger ',
    });
  });

  it('fails every occurrence of a duplicated ID, whatever their content', () => {
    const parsed = parseProbeReply(
      '[{"id":"q1","value":"0a1b2c3d","source":"s"},{"id":"q1","value":"0a1b2c3d","source":"s"}]',
      ['q1'],
    );
    expect(parsed.answers[0]).toEqual({
      id: 'q1',
      status: 'duplicate',
      value: null,
      source: null,
      detail: '2 answers with this id: all fail',
    });
  });

  it('ignores and counts answers for IDs that were not requested', () => {
    const parsed = parseProbeReply(
      '[{"id":"q1","value":null,"source":null},{"id":"x9","value":"0a1b2c3d","source":"s"},{"id":"Q1","value":null,"source":null}, 7, {"value":"1"}]',
      ['q1'],
    );
    expect(parsed.unrequestedCount).toBe(2);
    expect(parsed.answers[0]?.status).toBe('abstained');
    expect(parsed.notes).toEqual([
      'ignored 2 answer(s) for IDs that were not requested',
      'ignored 2 entries with no usable "id" (not an object, or id not a string)',
    ]);
  });
});

describe('parseProbeReply: input forms and robustness', () => {
  it('decodes UTF-8 bytes and notes invalid sequences', () => {
    const text = '[{"id":"q1","value":"0a1b2c3d","source":"caf\u00e9"}]';
    const bytes = new TextEncoder().encode(text);
    expect(parseProbeReply(bytes, ['q1']).answers[0]).toMatchObject({
      status: 'answered',
      source: 'caf\u00e9',
    });

    const broken = Uint8Array.from([
      ...new TextEncoder().encode('[{"id":"q1","value":"0a1b'),
      0xff,
      0xfe,
      ...new TextEncoder().encode('2c3d","source":"s"}]'),
    ]);
    const parsed = parseProbeReply(broken, ['q1']);
    expect(parsed.answers[0]).toMatchObject({ status: 'answered', value: '0a1b\ufffd\ufffd2c3d' });
    expect(parsed.notes).toEqual([
      'reply bytes are not valid UTF-8: invalid sequences were replaced by U+FFFD',
    ]);
  });

  it('treats a non-string, non-bytes reply from a JavaScript caller as empty', () => {
    const parsed = parseProbeReply(undefined as unknown as string, ['q1']);
    expect(parsed.answers[0]?.status).toBe('missing');
    expect(parsed.notes[0]).toBe(
      'reply is neither a string nor a Uint8Array (found undefined): treated as empty',
    );
  });

  it('rejects unusable requested IDs with an error naming the field', () => {
    expect(() => parseProbeReply('[]', ['q1', 'q1'])).toThrow(InvalidArgumentError);
    expect(() => parseProbeReply('[]', ['q1', 'q1'])).toThrow(
      'requestedIds[1]: ID "q1" is requested twice',
    );
    expect(() => parseProbeReply('[]', [''])).toThrow(
      'requestedIds[0]: expected a non-empty string ID',
    );
    expect(() => parseProbeReply('[]', 'q1' as unknown as string[])).toThrow(
      'requestedIds: expected an array of IDs',
    );
  });

  it('never throws on arbitrary text and always classifies every requested ID', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 400 }), (text) => {
        const parsed = parseProbeReply(text, IDS);
        expect(parsed.answers.map((a) => a.id)).toEqual(IDS);
        expect(ParsedProbeReplySchema.safeParse(parsed).success).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it('never throws on arbitrary bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 400 }), (bytes) => {
        expect(parseProbeReply(bytes, IDS).answers).toHaveLength(3);
      }),
      { numRuns: 1000 },
    );
  });

  it('never throws on JSON-shaped noise built from answer fragments', () => {
    const fragment = fc.constantFrom(
      '[',
      ']',
      '{',
      '}',
      ',',
      ':',
      '"id"',
      '"value"',
      '"source"',
      '"answers"',
      '"q1"',
      '"q2"',
      'null',
      '"0a1b2c3d"',
      '12',
      '```json\n',
      ' prose ',
      '"',
      '\\',
    );
    fc.assert(
      fc.property(fc.array(fragment, { maxLength: 60 }), (parts) => {
        const parsed = parseProbeReply(parts.join(''), IDS);
        expect(ParsedProbeReplySchema.safeParse(parsed).success).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it('splitting one answer set into several arrays changes no classification', () => {
    const answer = (id: string) =>
      fc.record({
        id: fc.constant(id),
        value: fc.option(fc.constantFrom('0a1b2c3d', 'ffffffff'), { nil: null }),
        source: fc.option(fc.constantFrom('s', 't'), { nil: null }),
      });
    fc.assert(
      fc.property(
        fc.subarray(IDS).chain((ids) => fc.tuple(...ids.map(answer))),
        fc.array(fc.nat(3), { minLength: 3, maxLength: 3 }),
        fc.constantFrom(' ', '\nAnd then: ', '\n```json\n'),
        (answers, groupOf, glue) => {
          const whole = parseProbeReply(JSON.stringify(answers), IDS);
          const groups = [0, 1, 2, 3].map((group) =>
            answers.filter((_, index) => groupOf[index] === group),
          );
          const split = groups
            .filter((group) => group.length > 0)
            .map((group) => JSON.stringify(group))
            .join(glue);
          expect(parseProbeReply(split, IDS).answers).toEqual(whole.answers);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('an ID answered in any two places of a reply is a duplicate, whatever else is there', () => {
    const entry = fc.record({
      id: fc.constantFrom(...IDS),
      value: fc.option(fc.constantFrom('0a1b2c3d', 'ffffffff'), { nil: null }),
      source: fc.option(fc.constantFrom('s', 't'), { nil: null }),
    });
    fc.assert(
      fc.property(
        fc.array(fc.array(entry, { maxLength: 4 }), { minLength: 1, maxLength: 4 }),
        fc.constantFrom(' ', '\nCorrection: ', '\n```json\n'),
        (sets, glue) => {
          const reply = sets.map((set) => JSON.stringify(set)).join(glue);
          const parsed = parseProbeReply(reply, IDS);
          IDS.forEach((id, index) => {
            const times = sets.flat().filter((item) => item.id === id).length;
            const status = parsed.answers[index]?.status;
            if (times === 0) expect(status).toBe('missing');
            else if (times === 1) expect(['answered', 'abstained', 'invalid']).toContain(status);
            else expect(status).toBe('duplicate');
          });
        },
      ),
      { numRuns: 500 },
    );
  });

  it('classifies the same way whatever the order of the answers', () => {
    const answer = fc.record({
      id: fc.constantFrom('q1', 'q2', 'q3', 'x'),
      value: fc.option(fc.constantFrom('0a1b2c3d', 'ffffffff', ''), { nil: null }),
      source: fc.option(fc.constantFrom('s', 't'), { nil: null }),
    });
    fc.assert(
      fc.property(
        fc
          .array(answer, { maxLength: 8 })
          .chain((list) =>
            fc.tuple(
              fc.constant(list),
              fc.shuffledSubarray(list, { minLength: list.length, maxLength: list.length }),
            ),
          ),
        ([list, shuffled]) => {
          const a = parseProbeReply(JSON.stringify(list), IDS);
          const b = parseProbeReply(JSON.stringify(shuffled), IDS);
          expect(b.answers).toEqual(a.answers);
          expect(b.unrequestedCount).toBe(a.unrequestedCount);
        },
      ),
      { numRuns: 500 },
    );
  });
});
