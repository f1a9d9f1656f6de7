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

describe('locateAnswerSet: choosing among candidates', () => {
  it('takes the candidate naming the most requested IDs', () => {
    expect(chosenIds('[{"id":"a"},{"id":"b"}] then [{"id":"c"}]')).toEqual(['a', 'b']);
  });

  it('breaks ties by the candidate that ends last', () => {
    const located = locateAnswerSet('[{"id":"a","n":1}] [{"id":"a","n":2}]', ids);
    expect(located.entriesById.get('a')).toHaveLength(1);
    expect(located.notes[0]).toBe(
      'found 2 answer sets; used the one starting at character 19 (most requested IDs, ties to the one ending last)',
    );
  });

  it('treats a wrapper and the array it holds as one answer set, keeping the wrapper', () => {
    const located = locateAnswerSet('{"answers":[{"id":"a"}],"meta":1}', ids);
    expect(located.notes).toEqual(['ignored top-level field(s) beside "answers": "meta"']);
  });

  it('finds complete answer sets inside a truncated larger value', () => {
    expect(chosenIds('{"draft": [{"id":"a"},{"id":"b"}], "final": [{"id":"c"')).toEqual(['a', 'b']);
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
