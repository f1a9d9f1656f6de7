import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ValidationError } from '@chi/spec';
import { afterAll, describe, expect, it } from 'vitest';
import { attemptRecordSha256 } from './attempt-chain';
import { type AttemptLogEnd, type AttemptLogLine, attemptLogLines } from './attempt-log-lines';
import { attemptLogFoldOf, readAttemptLogLean } from './attempt-log-reader';
import { RUN_FILE_NAME } from './run-files';

const MANIFEST = 'a'.repeat(64);
const root = mkdtempSync(join(tmpdir(), 'chi-attempt-lines-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A chained log of `before_send` records of requests `ids`, one line each. */
function chainedLines(ids: readonly string[]): string[] {
  let previous: string | null = null;
  return ids.map((id) => {
    const record = {
      kind: 'attempt',
      manifestSha256: MANIFEST,
      attemptId: `${id}#1`,
      requestId: id,
      systemId: 'perfect',
      blockId: 'memory.w1.n100',
      requestSha256: 'b'.repeat(64),
      inputBytes: 10,
      phase: 'before_send',
      at: '2026-12-04T11:08:46.618Z',
      result: null,
      previousSha256: previous,
    };
    previous = attemptRecordSha256(record);
    return JSON.stringify(record);
  });
}

let folders = 0;
/** A run folder whose attempt log is `text`; returns the folder and the log's path. */
function logOf(text: string): { dir: string; path: string } {
  const dir = join(root, `run-${folders++}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir);
  const path = join(dir, RUN_FILE_NAME.attempts);
  writeFileSync(path, text);
  return { dir, path };
}

async function readAll(path: string): Promise<{ lines: AttemptLogLine[]; end: AttemptLogEnd }> {
  const lines: AttemptLogLine[] = [];
  const reader = attemptLogLines(path, RUN_FILE_NAME.attempts);
  for (;;) {
    const next = await reader.next();
    if (next.done === true) return { lines, end: next.value };
    lines.push(next.value);
  }
}

describe('attemptLogLines, the one reader of the attempt log', () => {
  it('gives every record with where its line is, and skips a torn tail', async () => {
    const lines = chainedLines(['a', 'b', 'c']);
    const { path } = logOf(`${lines.join('\n')}\n{"kind":"att`);
    const read = await readAll(path);
    expect(read.lines.map((line) => line.record?.requestId)).toEqual(['a', 'b', 'c']);
    expect(read.lines.map((line) => line.number)).toEqual([1, 2, 3]);
    expect(read.lines[1]?.start).toBe((lines[0] as string).length + 1);
    expect(read.end.tornTail?.text).toBe('{"kind":"att');
  });

  it('skips a last complete line that is not JSON as a torn tail', async () => {
    const lines = chainedLines(['a', 'b']);
    const { path } = logOf(`${lines.join('\n')}\n{"kind":"att\n`);
    const read = await readAll(path);
    expect(read.lines.filter((line) => line.record !== null)).toHaveLength(2);
    expect(read.end.tornTail?.byteLength).toBe('{"kind":"att\n'.length);
  });

  it('refuses an unparseable line that is not the last, naming the file and the line', async () => {
    const lines = chainedLines(['a', 'b', 'c']);
    lines[1] = '{"kind":"attempt","pha';
    const { path } = logOf(`${lines.join('\n')}\n`);
    const error = await readAll(path).catch((caught: unknown) => caught);
    expect(ValidationError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain(`line 2 of ${RUN_FILE_NAME.attempts}`);
  });

  it('has no lines for a log that does not exist', async () => {
    const read = await readAll(join(root, 'none', RUN_FILE_NAME.attempts));
    expect(read).toEqual({ lines: [], end: { tornTail: null } });
  });
});

describe('readAttemptLogLean', () => {
  it('is a damaged-run error for an unparseable line that is not the last', async () => {
    const lines = chainedLines(['a', 'b', 'c']);
    lines[0] = 'not json';
    const { dir } = logOf(`${lines.join('\n')}\n`);
    await expect(readAttemptLogLean(dir, MANIFEST, null)).rejects.toThrow(
      `line 1 of ${RUN_FILE_NAME.attempts}`,
    );
  });

  it('folds the log in its one pass: the fold needs no second read of the file', async () => {
    const { dir, path } = logOf(`${chainedLines(['a', 'b', 'a']).join('\n')}\n`);
    const reading = await readAttemptLogLean(dir, MANIFEST, null);
    // the records are read from the file when asked for; the fold was made while it was read
    writeFileSync(path, '');
    const fold = attemptLogFoldOf(reading.attempts);
    expect([...(fold?.keys() ?? [])]).toEqual(['a', 'b']);
    expect(fold?.get('a')?.attempts).toBe(2);
    expect(reading.chain.problems).toEqual([]);
    expect(reading.chain.records).toBe(3);
    expect(attemptLogFoldOf([])).toBeUndefined();
  });
});
