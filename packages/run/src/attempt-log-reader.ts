import { join } from 'node:path';
import { type AttemptRecord, AttemptRecordSchema, ValidationError } from '@chi/spec';
import {
  type AttemptChainCheck,
  AttemptChainChecker,
  type AttemptLogAnchor,
} from './attempt-chain';
import { attemptRecordsOnDisk } from './attempt-records-on-disk';
import { fileLines } from './file-lines';
import { RUN_FILE_NAME } from './run-files';
import { streamRunJsonl } from './run-jsonl';

const ATTEMPTS_FILE = RUN_FILE_NAME.attempts;

/** The attempt log as the report reads it: its records (read on demand) and its chain. */
export interface AttemptLogReading {
  /**
   * Every record in file order, read from the file when it is asked for (see
   * {@link attemptRecordsOnDisk}); a record's `result.text` is read from its line once more when
   * asked for.
   */
  readonly attempts: readonly AttemptRecord[];
  /** The hash-chain check of the log (`checkAttemptChain`), made in the same pass. */
  readonly chain: AttemptChainCheck;
}

/**
 * Byte ranges of the newline-terminated lines of the log: the whole index the report keeps of it,
 * 16 bytes a record (a 60-world v0.1 log has 24,600 records and 160 MB of text).
 */
export interface LineRanges {
  /** Byte offset of each line's first byte. */
  readonly starts: Float64Array;
  /** Byte offset of each line's newline. */
  readonly ends: Float64Array;
}

/** A growable list of byte offsets, packed into a Float64Array when done. */
class OffsetList {
  #values = new Float64Array(1024);
  #length = 0;

  push(value: number): void {
    if (this.#length === this.#values.length) {
      const grown = new Float64Array(this.#values.length * 2);
      grown.set(this.#values);
      this.#values = grown;
    }
    this.#values[this.#length++] = value;
  }

  packed(): Float64Array {
    return this.#values.slice(0, this.#length);
  }
}

/**
 * Streams the log once: records where every complete line starts and ends, and feeds each line
 * to the chain check. A torn last line (no newline) is neither.
 */
async function scanLines(path: string, chain: AttemptChainChecker): Promise<LineRanges> {
  const starts = new OffsetList();
  const ends = new OffsetList();
  for await (const line of fileLines(path)) {
    if (!line.terminated) break;
    chain.line(line.text);
    starts.push(line.start);
    ends.push(line.end);
  }
  return { starts: starts.packed(), ends: ends.packed() };
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
 * only where each line is: the records are read from the file again when asked for
 * ({@link attemptRecordsOnDisk}). Memory holds 16 bytes a record, never the log's records.
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
  if (ranges.starts.length > 0) {
    try {
      // validated here, once; each record is dropped as soon as it is checked
      for await (const _record of streamRunJsonl(path, AttemptRecordSchema));
    } catch (error) {
      throw relativeError(error, path);
    }
  }
  return { attempts: attemptRecordsOnDisk(path, ranges, onRead), chain: checker.finish(anchor) };
}
