import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareFile } from '../__fixtures__/compare-file-oracle';
import { tempDir } from '../__fixtures__/temp-dir';
import { parseCsv, toCsv } from '../release/csv';
import { CsvRowReader, compareReleaseFile, textLines } from './compare-release-file';

/** Characters that matter to the parsers: separators, quotes, line ends, multi-byte UTF-8. */
const UNIT = fc.constantFrom(
  'a',
  'b',
  '1',
  ' ',
  ',',
  '"',
  '\n',
  '\r',
  '{',
  '}',
  ':',
  'é',
  '€',
  '𝄞',
);
const TEXT = fc.string({ unit: UNIT, maxLength: 60 });

/** A text cut into pieces at arbitrary UTF-16 positions (a surrogate pair may be split). */
function piecesOf(text: string, cuts: readonly number[]): string[] {
  const at = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
  const pieces: string[] = [];
  let from = 0;
  for (const to of at) {
    pieces.push(text.slice(from, to));
    from = to;
  }
  pieces.push(text.slice(from));
  return pieces;
}

const JSON_VALUE = fc.jsonValue({ maxDepth: 2 });
const CSV_ROWS = fc.array(fc.array(TEXT, { minLength: 1, maxLength: 4 }), { maxLength: 70 });

/** A recomputed text of each kind the comparison tells apart. */
const RECOMPUTED: Record<string, fc.Arbitrary<string>> = {
  'chart-data/x.json': JSON_VALUE.map((value) => JSON.stringify(value)),
  'scores/x.jsonl': fc
    .array(JSON_VALUE, { maxLength: 70 })
    .map((values) => values.map((value) => `${JSON.stringify(value)}\n`).join('')),
  'chart-data/x.csv': CSV_ROWS.map((rows) => {
    const columns = rows[0]?.map((_, i) => `c${i}`) ?? [];
    return toCsv(
      columns,
      rows.map((row) => Object.fromEntries(columns.map((column, i) => [column, row[i] ?? null]))),
    );
  }),
  'report.md': fc.array(TEXT, { maxLength: 70 }).map((lines) => lines.join('\n')),
};

/** An edit of the recorded text: cut, insert or replace at a position. */
const EDIT = fc.record({
  at: fc.nat(),
  remove: fc.nat({ max: 12 }),
  insert: fc.oneof(TEXT, fc.constantFrom('\n', '\n\n', '\n \n', '"', ' ', '1', '{"a":1}\n', ',,')),
});

/** A recorded text for a recomputed one: equal, edited in a few places, shifted, or another. */
function recordedOf(kind: fc.Arbitrary<string>, recomputed: string): fc.Arbitrary<string> {
  return fc.oneof(
    fc.constant(recomputed),
    fc.array(EDIT, { minLength: 1, maxLength: 3 }).map((edits) =>
      edits.reduce((text, edit) => {
        const at = edit.at % (text.length + 1);
        return text.slice(0, at) + edit.insert + text.slice(at + edit.remove);
      }, recomputed),
    ),
    fc.nat().map((n) => recomputed.slice(0, n % (recomputed.length + 1))),
    fc.constant(recomputed.slice(recomputed.indexOf('\n') + 1)),
    kind,
  );
}

const PAIR = fc.constantFrom(...Object.keys(RECOMPUTED)).chain((file) => {
  const kind = RECOMPUTED[file] as fc.Arbitrary<string>;
  return kind.chain((recomputed) =>
    recordedOf(kind, recomputed).map((recorded) => ({ file, recorded, recomputed })),
  );
});

describe('compareReleaseFile', () => {
  let dir: { path: string; remove: () => Promise<void> };
  beforeAll(async () => {
    dir = await tempDir('compare');
  });
  afterAll(async () => dir.remove());

  it('reports exactly the mismatches of the whole-text comparison, whatever the read size', async () => {
    const recordedPath = join(dir.path, 'recorded');
    const recomputedPath = join(dir.path, 'recomputed');
    const readBytes = fc.oneof(fc.integer({ min: 1, max: 9 }), fc.constant(64 * 1024));
    await fc.assert(
      fc.asyncProperty(PAIR, readBytes, async ({ file, recorded, recomputed }, bytes) => {
        await writeFile(recordedPath, recorded);
        await writeFile(recomputedPath, recomputed);
        // the whole-text comparison of the texts the files hold (a cut surrogate pair reads
        // back as U+FFFD in both)
        const expected = compareFile(
          file,
          await readFile(recordedPath, 'utf8'),
          await readFile(recomputedPath, 'utf8'),
        );
        const streamed = await compareReleaseFile(file, recordedPath, recomputedPath, bytes);
        expect(streamed).toEqual(expected);
      }),
      { numRuns: 1000 },
    );
  });

  it('keeps 50 differences of a file and counts the rest, like the whole-text comparison', async () => {
    const recordedPath = join(dir.path, 'many-recorded.jsonl');
    const recomputedPath = join(dir.path, 'many-recomputed.jsonl');
    const lines = (offset: number) =>
      Array.from({ length: 120 }, (_, i) => `{"n":${i + offset}}\n`).join('');
    await writeFile(recordedPath, lines(1));
    await writeFile(recomputedPath, lines(0));
    const streamed = await compareReleaseFile('scores/x.jsonl', recordedPath, recomputedPath, 7);
    expect(streamed).toHaveLength(51);
    expect(streamed[50]?.message).toBe('scores/x.jsonl: … and 70 more differences');
    expect(streamed).toEqual(compareFile('scores/x.jsonl', lines(1), lines(0)));
  });

  it('throws when the recorded file cannot be read', async () => {
    const recomputedPath = join(dir.path, 'present.csv');
    await writeFile(recomputedPath, 'a\n1\n');
    await expect(
      compareReleaseFile('x.csv', join(dir.path, 'absent.csv'), recomputedPath),
    ).rejects.toThrow(/ENOENT/);
    await expect(compareReleaseFile('x.csv', dir.path, recomputedPath)).rejects.toThrow(/EISDIR/);
  });
});

describe('textLines', () => {
  let dir: { path: string; remove: () => Promise<void> };
  beforeAll(async () => {
    dir = await tempDir('text-lines');
  });
  afterAll(async () => dir.remove());

  it('gives the lines of text.split, whatever the read size', async () => {
    const path = join(dir.path, 'text');
    await fc.assert(
      fc.asyncProperty(TEXT, fc.integer({ min: 1, max: 9 }), async (text, bytes) => {
        await writeFile(path, text);
        const lines: string[] = [];
        for await (const line of textLines(path, bytes)) lines.push(line);
        expect(lines).toEqual((await readFile(path, 'utf8')).split('\n'));
      }),
      { numRuns: 200 },
    );
  });
});

describe('CsvRowReader', () => {
  it('gives the rows of parseCsv, whatever the pieces the text comes in', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          TEXT,
          CSV_ROWS.map((rows) => rows.map((row) => row.join(',')).join('\n')),
        ),
        fc.array(fc.nat(), { maxLength: 8 }),
        (text, cuts) => {
          const reader = new CsvRowReader();
          const rows = piecesOf(text, cuts).flatMap((piece) => reader.push(piece));
          expect([...rows, ...reader.end()]).toEqual(parseCsv(text));
        },
      ),
      { numRuns: 500 },
    );
  });
});
