import { join } from 'node:path';
import type { AttemptRecord } from '@chi/spec';
import {
  type AttemptChainCheck,
  AttemptChainChecker,
  type AttemptLogAnchor,
} from './attempt-chain';
import { foldAttemptRecord, type RequestLogState } from './attempt-log';
import { attemptLogLines } from './attempt-log-lines';
import { attemptRecordsOnDisk, type LineRanges } from './attempt-records-on-disk';
import { RUN_FILE_NAME } from './run-files';

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

/** What the one streamed pass keeps of the log: where each line is, and the log's fold. */
interface LogScan {
  readonly ranges: LineRanges;
  readonly fold: Map<string, RequestLogState<number>>;
}

/**
 * Streams the log once ({@link attemptLogLines}, the one reader and its torn-tail rule): records
 * where every complete record starts and ends, feeds each line to the chain check, and folds each
 * record with `foldAttemptRecord`, keeping of a result only the index of its record. A torn tail is
 * none of these (it still counts against the chain, as every reader of the chain counts it).
 */
async function scanLog(path: string, chain: AttemptChainChecker | null): Promise<LogScan> {
  const starts = new OffsetList();
  const ends = new OffsetList();
  const fold = new Map<string, RequestLogState<number>>();
  let index = 0;
  for await (const line of attemptLogLines(path, ATTEMPTS_FILE)) {
    if (line.record === null) {
      // held as possibly torn: the next line throws, or it is the tail
      chain?.line(line.bytes.toString('utf8'));
      continue;
    }
    chain?.record(line.value);
    starts.push(line.start);
    ends.push(line.end);
    const at = index++;
    foldAttemptRecord(fold, line.record, () => at);
  }
  return { ranges: { starts: starts.packed(), ends: ends.packed() }, fold };
}

const FOLDS = new WeakMap<readonly AttemptRecord[], ReadonlyMap<string, RequestLogState<number>>>();

/**
 * The fold of the log that `attempts` (a reading of {@link readAttemptLogLean}) was read with, made
 * in the same pass: each request's `RequestLogState`, a result kept as the index of its record in
 * `attempts`. Undefined for records not read that way (a caller then folds them itself).
 */
export function attemptLogFoldOf(
  attempts: readonly AttemptRecord[],
): ReadonlyMap<string, RequestLogState<number>> | undefined {
  return FOLDS.get(attempts);
}

/**
 * Reads `attempts.jsonl` of a run folder in one streamed pass with the run folder's JSONL rule
 * ({@link attemptLogLines}: a torn last line skipped, a bad line elsewhere a `ValidationError`
 * naming it), checks its hash chain against `manifestSha256` and `anchor` and folds it
 * (`foldAttemptRecord`, see {@link attemptLogFoldOf}) in the same pass, and keeps only where each
 * line is: the records are read from the file again when asked for ({@link attemptRecordsOnDisk}).
 * Memory holds 16 bytes a record and a few numbers a request, never the log's records.
 */
export async function readAttemptLogLean(
  dir: string,
  manifestSha256: string,
  anchor: AttemptLogAnchor | null,
  onRead?: (path: string) => void,
): Promise<AttemptLogReading> {
  const checker = new AttemptChainChecker(manifestSha256);
  const attempts = await readLean(dir, checker, onRead);
  return { attempts, chain: checker.finish(anchor) };
}

/**
 * {@link readAttemptLogLean} without its chain check, for a reader that checks the chain in its
 * own pass over the log with every anchor (`checkRunIntegrity`): the same records, read the same
 * way, and the same fold ({@link attemptLogFoldOf}), without hashing every record a second time.
 */
export async function readAttemptRecordsLean(
  dir: string,
  onRead?: (path: string) => void,
): Promise<readonly AttemptRecord[]> {
  return readLean(dir, null, onRead);
}

async function readLean(
  dir: string,
  chain: AttemptChainChecker | null,
  onRead: ((path: string) => void) | undefined,
): Promise<readonly AttemptRecord[]> {
  const path = join(dir, ATTEMPTS_FILE);
  const { ranges, fold } = await scanLog(path, chain);
  const attempts = attemptRecordsOnDisk(path, ranges, onRead);
  FOLDS.set(attempts, fold);
  return attempts;
}
