import { ChisEntrySchema, ValidationError } from '@chi/spec';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { makeEntry } from './__fixtures__/entries';
import { parseJsonl, serializeJsonlLine } from './jsonl-lines';

const Point = z.strictObject({ x: z.number(), label: z.string() });

function captureValidationError(run: () => unknown): ValidationError {
  try {
    run();
  } catch (error) {
    if (ValidationError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a ValidationError');
}

describe('serializeJsonlLine', () => {
  it('writes one compact JSON line ending in a newline', () => {
    expect(serializeJsonlLine(Point, { x: 1.5, label: 'a\nb' }, 'point')).toBe(
      '{"x":1.5,"label":"a\\nb"}\n',
    );
  });

  it('names the bad field when the record fails its schema', () => {
    const entry = { ...makeEntry('t', { checkpoint: 0, condition: 'baseline' }), eventCount: -1 };
    const error = captureValidationError(() =>
      serializeJsonlLine(ChisEntrySchema, entry, 'CHIS entry'),
    );
    expect(error.issues.map((issue) => issue.path)).toEqual(['eventCount']);
    expect(error.message).toContain('Invalid CHIS entry');
    expect(error.message).toContain('eventCount');
  });

  it('validates the record as it will be read back: a Date becomes a string and is refused', () => {
    const WithDate = z.strictObject({ at: z.date() });
    const error = captureValidationError(() =>
      serializeJsonlLine(WithDate, { at: new Date(0) }, 'stamp'),
    );
    expect(error.issues[0]?.path).toBe('at');
    expect(error.issues[0]?.message).toContain('changes when written as JSON');
  });

  it('refuses values JSON cannot hold', () => {
    expect(() => serializeJsonlLine(z.unknown(), 10n, 'big')).toThrow(/not serializable as JSON/);
    expect(() => serializeJsonlLine(z.unknown(), undefined, 'nothing')).toThrow(
      /expected a JSON value/,
    );
  });

  it('refuses a "__proto__" key, which zod would silently drop on read', () => {
    const entry = makeEntry('t', { checkpoint: 0, condition: 'baseline' });
    const poisoned = {
      ...entry,
      profile: JSON.parse('{"ok":1,"__proto__":2}') as Record<string, number>,
    };
    const error = captureValidationError(() =>
      serializeJsonlLine(ChisEntrySchema, poisoned, 'CHIS entry'),
    );
    expect(error.issues).toEqual([
      { path: 'profile.__proto__', message: expect.stringContaining('cannot be stored') },
    ]);
  });
});

describe('parseJsonl', () => {
  const lines = ['{"x":1,"label":"a"}', '{"x":2,"label":"b"}', '{"x":3,"label":"c"}'];

  it('reads every record of a well-formed text', () => {
    expect(parseJsonl(`${lines.join('\n')}\n`, Point)).toEqual({
      records: [
        { x: 1, label: 'a' },
        { x: 2, label: 'b' },
        { x: 3, label: 'c' },
      ],
      tornTail: null,
    });
  });

  it('reports a last line without newline as torn, even when it parses', () => {
    const text = `${lines[0]}\n${lines[1]}`;
    expect(parseJsonl(text, Point)).toEqual({
      records: [{ x: 1, label: 'a' }],
      tornTail: { byteOffset: lines[0]!.length + 1, byteLength: lines[1]!.length, text: lines[1] },
    });
  });

  it('reports a newline-terminated but unparseable last line as torn', () => {
    const text = `${lines[0]}\n{"x":2,"la\n`;
    expect(parseJsonl(text, Point).tornTail).toEqual({
      byteOffset: lines[0]!.length + 1,
      byteLength: '{"x":2,"la\n'.length,
      text: '{"x":2,"la',
    });
  });

  it('counts torn bytes in UTF-8, not in characters', () => {
    const text = `${lines[0]}\n{"label":"é`;
    expect(parseJsonl(text, Point).tornTail).toEqual({
      byteOffset: lines[0]!.length + 1,
      byteLength: 12,
      text: '{"label":"é',
    });
  });

  it('rejects a corrupt line in the middle, naming its line number and byte offset', () => {
    const text = `${lines[0]}\n{oops\n${lines[2]}\n`;
    expect(() => parseJsonl(text, Point, 'points.jsonl')).toThrow(
      `line 2 of points.jsonl (byte offset ${lines[0]!.length + 1})`,
    );
  });

  it('rejects an empty line in the middle', () => {
    expect(() => parseJsonl(`${lines[0]}\n\n${lines[1]}\n`, Point)).toThrow(/line 2 .*empty line/s);
  });

  it('rejects a corrupt line followed only by a torn tail: the corruption is not at the end', () => {
    expect(() => parseJsonl(`${lines[0]}\n{oops\n{"x":`, Point)).toThrow(/line 2/);
  });

  it('rejects invalid UTF-8 in the middle', () => {
    const bytes = new Uint8Array([
      ...new TextEncoder().encode('{"x":1,"label":"'),
      0xff,
      ...new TextEncoder().encode(`"}\n${lines[1]}\n`),
    ]);
    expect(() => parseJsonl(bytes, Point)).toThrow(/line 1 .*not valid UTF-8/s);
  });

  it('rejects a schema-invalid last line instead of calling it torn', () => {
    const error = captureValidationError(() =>
      parseJsonl(`${lines[0]}\n{"x":"2","label":"b"}\n`, Point, 'p'),
    );
    expect(error.subject).toBe(`line 2 of p (byte offset ${lines[0]!.length + 1})`);
    expect(error.issues[0]?.path).toBe('x');
  });

  it('refuses a "__proto__" key written by another tool instead of dropping it', () => {
    const Bag = z.record(z.string(), z.number());
    expect(() => parseJsonl('{"a":1,"__proto__":2}\n', Bag)).toThrow(
      /__proto__.*cannot be stored/s,
    );
  });

  it('reads an empty input as no records and no torn tail', () => {
    expect(parseJsonl('', Point)).toEqual({ records: [], tornTail: null });
  });
});
