import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isJsonObject, MAX_JSON_DEPTH, readJsonValue, toPlainJson } from './strict-json';

function parseAll(text: string): { ok: true; value: unknown } | { ok: false } {
  const start = text.search(/\S/);
  if (start === -1) return { ok: false };
  const read = readJsonValue(text, start);
  if (!read.ok || text.slice(read.end).trim() !== '') return { ok: false };
  return { ok: true, value: toPlainJson(read.value) };
}

function jsonParse(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

describe('readJsonValue', () => {
  it('agrees with JSON.parse on every JSON text', () => {
    fc.assert(
      fc.property(fc.json(), (text) => {
        expect(parseAll(text)).toEqual(jsonParse(text));
      }),
      { numRuns: 500 },
    );
  });

  it('accepts exactly what JSON.parse accepts on arbitrary near-JSON text', () => {
    const alphabet = fc.constantFrom(...'{}[]",:\\ -+.0123456789eEtrufalsn\n\tu"ab'.split(''));
    fc.assert(
      fc.property(fc.array(alphabet, { maxLength: 30 }), (chars) => {
        const text = chars.join('');
        expect(parseAll(text).ok).toBe(jsonParse(text).ok);
      }),
      { numRuns: 3000 },
    );
  });

  it('stops after one value and reports where it ended', () => {
    const text = 'see [1, {"a": "x]"}] and more [2]';
    const read = readJsonValue(text, 4);
    expect(read).toMatchObject({ ok: true, end: 20 });
    expect(text.slice(4, 20)).toBe('[1, {"a": "x]"}]');
  });

  it('records repeated keys (JSON.parse would hide them) and keeps the last value', () => {
    const read = readJsonValue('{"value":"a","id":"q","value":"b"}', 0);
    expect(read.ok).toBe(true);
    if (!read.ok || !isJsonObject(read.value)) throw new Error('expected an object');
    expect(read.value.repeatedKeys).toEqual(['value']);
    expect(read.value.fields.get('value')).toBe('b');
  });

  it('decodes escapes, including surrogate pairs and lone surrogates', () => {
    const read = readJsonValue('["\\u00e9\\ud83d\\ude00\\ud800\\n\\/"]', 0);
    expect(read.ok && toPlainJson(read.value)).toEqual(['\u00e9\u{1f600}\ud800\n/']);
  });

  it('reports every completed array and object, innermost first, even when the read fails', () => {
    const seen: [number, number, unknown][] = [];
    const read = readJsonValue('[{"a":[1]},{"b":2},{"c"', 0, (start, end, value) => {
      seen.push([start, end, toPlainJson(value)]);
    });
    expect(read.ok).toBe(false);
    expect(seen).toEqual([
      [6, 9, [1]],
      [1, 10, { a: [1] }],
      [11, 18, { b: 2 }],
    ]);
  });

  it('keeps __proto__ as a plain field', () => {
    const read = readJsonValue('{"__proto__": {"polluted": true}}', 0);
    expect(read.ok && isJsonObject(read.value) && read.value.fields.has('__proto__')).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('rejects nesting deeper than the cap without recursing into it', () => {
    const ok = `${'['.repeat(MAX_JSON_DEPTH)}${']'.repeat(MAX_JSON_DEPTH)}`;
    const tooDeep = `${'['.repeat(MAX_JSON_DEPTH + 1)}${']'.repeat(MAX_JSON_DEPTH + 1)}`;
    expect(readJsonValue(ok, 0).ok).toBe(true);
    expect(readJsonValue(tooDeep, 0)).toEqual({
      ok: false,
      failedAt: MAX_JSON_DEPTH,
      failure: 'depth',
      firstBracketInString: -1,
    });
    expect(readJsonValue('['.repeat(200_000), 0).ok).toBe(false);
  });

  it('fails at the offending character on truncated or malformed input', () => {
    const syntax = (failedAt: number, firstBracketInString = -1) => ({
      ok: false,
      failedAt,
      failure: 'syntax',
      firstBracketInString,
    });
    expect(readJsonValue('[{"id": "q1", "value": "ab', 0)).toEqual(syntax(26));
    expect(readJsonValue('[1,]', 0)).toEqual(syntax(3));
    expect(readJsonValue("{'id': 1}", 0)).toEqual(syntax(1));
    expect(readJsonValue('["a[b", x]', 0)).toEqual(syntax(8, 3));
    expect(readJsonValue('["a\tb"]', 0).ok).toBe(false); // raw control character in a string
    expect(readJsonValue('[01]', 0).ok).toBe(false);
    expect(readJsonValue('[NaN]', 0).ok).toBe(false);
  });
});
