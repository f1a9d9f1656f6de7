import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { attemptRecordSha256, checkAttemptChain, checkAttemptChainFile } from './attempt-chain';

const MANIFEST = 'a'.repeat(64);

/** A chained log of `texts.length` records, as the pilot writes it. */
function chainedLog(texts: readonly string[]): string {
  let previous: string | null = null;
  const lines: string[] = [];
  for (const [index, text] of texts.entries()) {
    const record = {
      kind: 'attempt',
      manifestSha256: MANIFEST,
      attemptId: `r${index}#1`,
      text,
      previousSha256: previous,
    };
    previous = attemptRecordSha256(record);
    lines.push(JSON.stringify(record));
  }
  return lines.map((line) => `${line}\n`).join('');
}

describe('checkAttemptChain', () => {
  it('accepts an intact log, and a torn final line', () => {
    const log = chainedLog(['a', 'b', 'c']);
    const check = checkAttemptChain(log, MANIFEST);
    expect(check.problems).toEqual([]);
    expect(check.records).toBe(3);
    expect(checkAttemptChain(`${log}{"kind":"att`, MANIFEST).problems).toEqual([]);
  });

  it('detects any edit of any record but the last, and the last one through the anchor', () => {
    fc.assert(
      fc.property(
        fc.array(fc.string(), { minLength: 1, maxLength: 6 }),
        fc.nat(),
        fc.string(),
        (texts, at, replacement) => {
          const index = at % texts.length;
          fc.pre(replacement !== texts[index]);
          const log = chainedLog(texts);
          const intact = checkAttemptChain(log, MANIFEST);
          const lines = log.trimEnd().split('\n');
          const record = JSON.parse(lines[index] as string) as { text: string };
          record.text = replacement;
          lines[index] = JSON.stringify(record);
          const edited = `${lines.join('\n')}\n`;
          const anchor = { records: intact.records, headSha256: intact.headSha256 };
          expect(checkAttemptChain(edited, MANIFEST, anchor).problems).not.toEqual([]);
        },
      ),
    );
  });

  it('names a record of another manifest, a removed record and an emptied log', () => {
    const log = chainedLog(['a', 'b', 'c']);
    const intact = checkAttemptChain(log, MANIFEST);
    const anchor = { records: intact.records, headSha256: intact.headSha256 };
    expect(checkAttemptChain(log.replace(MANIFEST, 'b'.repeat(64)), MANIFEST).problems[0]).toMatch(
      /^line 1 carries manifest hash b+, not this run's a+$/,
    );
    const lines = log.trimEnd().split('\n');
    expect(checkAttemptChain(`${[lines[0], lines[2]].join('\n')}\n`, MANIFEST).problems).toEqual([
      expect.stringMatching(/^line 2 does not follow the record before it/),
    ]);
    expect(checkAttemptChain('', MANIFEST, anchor).problems).toEqual([
      'it holds 0 records, but status.json saw 3: records were removed (emptied or cut)',
    ]);
  });

  it('accepts a log written before the chain (no previousSha256 anywhere)', () => {
    const legacy = `${JSON.stringify({ manifestSha256: MANIFEST, n: 1 })}\n${JSON.stringify({ manifestSha256: MANIFEST, n: 2 })}\n`;
    expect(checkAttemptChain(legacy, MANIFEST).problems).toEqual([]);
  });
});

describe('checkAttemptChainFile (the runner streams the log before a resume appends)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'chi-attempt-chain-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  let files = 0;
  const onDisk = (text: string): string => {
    files += 1;
    const path = join(dir, `attempts-${files}.jsonl`);
    writeFileSync(path, text);
    return path;
  };
  const unchained = (texts: readonly string[]): string =>
    texts
      .map(
        (text, index) =>
          `${JSON.stringify({ manifestSha256: MANIFEST, attemptId: `r${index}`, text })}\n`,
      )
      .join('');

  it('answers exactly as checkAttemptChain on the whole text: intact, edited, torn, unchained or not JSON', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.string({ unit: 'grapheme' }), { maxLength: 5 }),
        fc.constantFrom('chained', 'unchained'),
        fc.constantFrom('', '{"kind":"att', 'not json\n'),
        fc.option(fc.nat({ max: 6 }), { nil: null }),
        async (texts, kind, tail, anchorAt) => {
          const text = (kind === 'chained' ? chainedLog(texts) : unchained(texts)) + tail;
          const whole = checkAttemptChain(text, MANIFEST);
          const anchor =
            anchorAt === null
              ? null
              : { records: anchorAt, headSha256: whole.sha256s[anchorAt - 1] ?? null };
          const streamed = await checkAttemptChainFile(onDisk(text), MANIFEST, anchor);
          const { chained, ...check } = streamed;
          const { sha256s: _all, ...expected } = checkAttemptChain(text, MANIFEST, anchor);
          expect(check).toEqual(expected);
          // The anchor is checked as the log streams: no record's hash is kept for the end.
          expect(streamed).not.toHaveProperty('sha256s');
          expect(chained).toBe(kind === 'chained' || texts.length === 0);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('reads lines across its 1 MiB chunks, multi-byte characters included, and a missing file as empty', async () => {
    const long = 'é€😀'.repeat(150_000); // 1.35 MB of UTF-8 a record: every record crosses a chunk
    const text = chainedLog([long, 'short', long]);
    const streamed = await checkAttemptChainFile(onDisk(text), MANIFEST);
    expect(streamed.problems).toEqual([]);
    expect(streamed.records).toBe(3);
    expect(streamed.headSha256).toBe(checkAttemptChain(text, MANIFEST).headSha256);
    expect(await checkAttemptChainFile(join(dir, 'missing.jsonl'), MANIFEST)).toMatchObject({
      records: 0,
      headSha256: null,
      chained: true,
      problems: [],
    });
  });
});
