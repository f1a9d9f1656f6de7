import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { attemptRecordSha256, checkAttemptChain } from './attempt-chain';

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
