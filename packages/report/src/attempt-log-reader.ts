import { closeSync, openSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { streamRunJsonl } from '@chi/run';
import { type AttemptRecord, AttemptRecordSchema, ValidationError } from '@chi/spec';
import {
  type AttemptChainCheck,
  AttemptChainChecker,
  type AttemptLogAnchor,
} from './attempt-chain';
import { fileLines } from './file-lines';

const ATTEMPTS_FILE = 'attempts.jsonl';

/** The attempt log as the report reads it: its records (reply texts read on demand) and its chain. */
export interface AttemptLogReading {
  /** Every record in file order; `result.text` is read from the file when it is asked for. */
  readonly attempts: AttemptRecord[];
  /** The hash-chain check of the log (`checkAttemptChain`), made in the same pass. */
  readonly chain: AttemptChainCheck;
}

/** Byte ranges of the newline-terminated lines of the log (where each record's text is). */
interface LineRanges {
  readonly starts: number[];
  readonly ends: number[];
}

/**
 * Streams the log once: records where every complete line starts and ends, and feeds each line
 * to the chain check. A torn last line (no newline) is neither.
 */
async function scanLines(path: string, chain: AttemptChainChecker): Promise<LineRanges> {
  const ranges: LineRanges = { starts: [], ends: [] };
  for await (const line of fileLines(path)) {
    if (!line.terminated) break;
    chain.line(line.text);
    ranges.starts.push(line.start);
    ranges.ends.push(line.end);
  }
  return ranges;
}

/** Reads one line of the log back and returns its reply text (the file was checked when read). */
function readReplyText(path: string, start: number, end: number): string | null {
  const bytes = Buffer.allocUnsafe(end - start);
  const fd = openSync(path, 'r');
  try {
    readSync(fd, bytes, 0, bytes.length, start);
  } finally {
    closeSync(fd);
  }
  // validated when the folder was read; appends since then do not move earlier lines
  const record = JSON.parse(bytes.toString('utf8')) as { result?: { text?: unknown } | null };
  const text = record.result?.text;
  return typeof text === 'string' ? text : null;
}

/**
 * Makes `result.text` of a record read from its line when asked for, instead of held: reply texts
 * are most of a log's bytes (a memory-encode reply is a whole notebook), and scoring reads each
 * one once. The property stays enumerable, so the record serialises exactly as before.
 */
function readTextOnDemand(
  record: AttemptRecord,
  path: string,
  start: number,
  end: number,
  onRead: ((path: string) => void) | undefined,
): void {
  const result = record.result;
  if (result === null || result === undefined || result.text === null) return;
  Object.defineProperty(result, 'text', {
    enumerable: true,
    configurable: false,
    get: () => {
      onRead?.(`${ATTEMPTS_FILE}:${start}`);
      return readReplyText(path, start, end);
    },
  });
}

/** A validation error naming the log by its name in the folder, as the whole-file reader did. */
function relativeError(error: unknown, path: string): unknown {
  if (!ValidationError.isInstance(error) || !error.subject.includes(path)) return error;
  return new ValidationError(error.subject.replace(path, ATTEMPTS_FILE), error.issues, {
    cause: error,
  });
}

/**
 * Reads `attempts.jsonl` of a run folder with the run folder's JSONL rule (`streamRunJsonl` of
 * `@chi/run`: a torn last line skipped, a bad line elsewhere a `ValidationError` naming it),
 * checks its hash chain against `manifestSha256` and `anchor` in the same streamed pass, and keeps
 * each record without its reply text, which is read from the file again when asked for. Memory
 * holds the records' metadata, never the log's text.
 */
export async function readAttemptLogLean(
  dir: string,
  manifestSha256: string,
  anchor: AttemptLogAnchor | null,
  onRead?: (path: string) => void,
): Promise<AttemptLogReading> {
  const path = join(dir, ATTEMPTS_FILE);
  const checker = new AttemptChainChecker(manifestSha256);
  const ranges = await scanLines(path, checker);
  const attempts: AttemptRecord[] = [];
  if (ranges.starts.length > 0) {
    try {
      for await (const record of streamRunJsonl(path, AttemptRecordSchema)) {
        const index = attempts.length;
        readTextOnDemand(record, path, ranges.starts[index] ?? 0, ranges.ends[index] ?? 0, onRead);
        attempts.push(record);
      }
    } catch (error) {
      throw relativeError(error, path);
    }
  }
  return { attempts, chain: checker.finish(anchor) };
}
