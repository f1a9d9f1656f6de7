import { describe, expect, it } from 'vitest';
import {
  checkRequestedIds,
  locateAnswerSet,
  quoteUntrusted,
  scanBudgetChars,
  shapeProblems,
} from './answer-set';
import { readJsonValue } from './strict-json';

const ids = ['a', 'b', 'c'];
const chosenIds = (reply: string) =>
  [...locateAnswerSet(reply, ids).entriesById]
    .filter(([, entries]) => entries.length > 0)
    .map(([id]) => id);

const entryCounts = (reply: string) =>
  Object.fromEntries(
    [...locateAnswerSet(reply, ids).entriesById].map(([id, entries]) => [id, entries.length]),
  );

describe('locateAnswerSet: every answer set counts', () => {
  it('collects the entries of every answer set in the reply', () => {
    expect(entryCounts('[{"id":"a"},{"id":"b"}] then [{"id":"c"}]')).toEqual({ a: 1, b: 1, c: 1 });
  });

  it('keeps both entries of an ID answered in two answer sets, and says so', () => {
    const located = locateAnswerSet('[{"id":"a","n":1}] [{"id":"a","n":2}]', ids);
    expect(located.entriesById.get('a')).toHaveLength(2);
    expect(located.notes).toEqual([
      'found 2 answer sets; all their answers count, and 1 requested ID(s) answered more than once fail as duplicates',
    ]);
  });

  it('counts a wrapper beside another answer array as two answer sets', () => {
    expect(entryCounts('{"answers":[{"id":"a"}],"draft":[{"id":"a"},{"id":"b"}]}')).toEqual({
      a: 2,
      b: 1,
      c: 0,
    });
  });

  it('counts an answer set read again after a failed read only once', () => {
    // The first read fails at the end; the search resumes inside the string "[" and later reads
    // the array at character 16 a second time.
    expect(entryCounts('{"k": "[", "v": [{"id":"a"}] ')).toEqual({ a: 1, b: 0, c: 0 });
  });

  it('treats a wrapper and the array it holds as one answer set, keeping the wrapper', () => {
    const located = locateAnswerSet('{"answers":[{"id":"a"}],"meta":1}', ids);
    expect(located.notes).toEqual(['ignored top-level field(s) beside "answers": "meta"']);
  });

  it('finds complete answer sets inside a truncated larger value', () => {
    expect(chosenIds('{"draft": [{"id":"a"},{"id":"b"}], "final": [{"id":"c"')).toEqual(['a', 'b']);
    expect(entryCounts('{"one": [{"id":"a"}], "two": [{"id":"b"}], "three": [{"id":"c"')).toEqual({
      a: 1,
      b: 1,
      c: 0,
    });
  });

  it('resumes at a bracket that a failed read took for string content', () => {
    // The first read takes `"x [` as the start of a string and fails at the end of the text.
    expect(chosenIds('["x [{"id":"a"},{"id":"b"}]')).toEqual(['a', 'b']);
  });

  it('reports a reading budget that grows with the reply', () => {
    expect(scanBudgetChars(0)).toBe(4 * 1024 * 1024);
    expect(scanBudgetChars(1000)).toBe(16_000 + 4 * 1024 * 1024);
  });
});

describe('answer shape helpers', () => {
  it('lists every shape problem', () => {
    const read = readJsonValue('{"id":1,"value":"x","value":"y","extra":true}', 0);
    if (!read.ok) throw new Error('fixture must parse');
    expect(shapeProblems(read.value, ['id', 'value', 'source'])).toEqual([
      'field(s) given more than once: "value"',
      'id must be a string, found number',
      'unexpected field(s): "extra"',
      'missing field(s): "source"',
    ]);
  });

  it('quotes untrusted text safely and briefly', () => {
    expect(quoteUntrusted('a"b\nc')).toBe('"a\\"b\\nc"');
    expect(quoteUntrusted('x'.repeat(100))).toBe(`"${'x'.repeat(40)}..."`);
  });

  it('checks requested IDs', () => {
    expect(() => checkRequestedIds(['a', 'a'])).toThrow(
      'requestedIds[1]: ID "a" is requested twice',
    );
    expect(() => checkRequestedIds([1] as unknown as string[])).toThrow(
      'requestedIds[0]: expected a non-empty string ID, found number',
    );
  });
});

describe('locateAnswerSet: what counts as an answer set', () => {
  it('ignores arrays that cannot hold answers, but accepts an empty one', () => {
    expect(locateAnswerSet('I checked items [1, 2] and ["a"].', ids).foundAnswerSet).toBe(false);
    expect(locateAnswerSet('[]', ids).foundAnswerSet).toBe(true);
    expect(locateAnswerSet('{"answers": [1]}', ids).foundAnswerSet).toBe(true);
  });
});
