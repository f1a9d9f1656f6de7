import type { AttemptRecord, ChatResult } from '@chi/spec';
import { AttemptRecordSchema } from '@chi/spec';
import type { RequestOutcome } from './request-outcome';
import { readRunJsonl } from './run-jsonl';

/**
 * What the attempt log says about one registered request: the per-request latest state of the one
 * fold of the log ({@link foldAttemptRecord}). `R` is what is kept of a result: the result itself
 * by default, or something smaller (the line that holds it, for a reader that reads it back).
 */
export interface RequestLogState<R = ChatResult> {
  /** `before_send` records so far (attempts started). */
  readonly attempts: number;
  /** The attempt ID of a `before_send` with neither `after_response` nor `abandoned`; else null. */
  readonly openAttemptId: string | null;
  /** Request hash and input bytes of that open attempt's `before_send`. */
  readonly openRequestSha256: string | null;
  readonly openInputBytes: number;
  /** What is kept of the last `after_response` result, or null. */
  readonly result: R | null;
  /** Attempt ID of that result. */
  readonly resultAttemptId: string | null;
  /** `abandoned` records so far. */
  readonly abandoned: number;
  /** The reason of the last `abandoned` record, or null. */
  readonly abandonedReason: string | null;
}

const EMPTY_STATE: RequestLogState<never> = {
  attempts: 0,
  openAttemptId: null,
  openRequestSha256: null,
  openInputBytes: 0,
  result: null,
  resultAttemptId: null,
  abandoned: 0,
  abandonedReason: null,
};

/**
 * Folds the attempt log into one state per request ID, in file order (see
 * {@link foldAttemptRecord}). The runner resumes from this fold and the report scores from it, so
 * both read a log the same way.
 */
export function foldAttemptLog(records: readonly AttemptRecord[]): Map<string, RequestLogState> {
  const states = new Map<string, RequestLogState>();
  for (const record of records) foldAttemptRecord(states, record);
  return states;
}

/**
 * The attempt log's one fold, one record at a time (file order), into `states` keyed by request
 * ID: a `before_send` opens an attempt, its `after_response` closes it with a result (the last
 * result wins: a scripted request re-sent after an interruption), an `abandoned` closes it without
 * one; an attempt is closed only by a record of its own ID. Every reader of the log (the runner's
 * resume, scoring's outcomes, the live view) folds with it, streaming the log record by record.
 *
 * @param keep - what the state keeps of a non-null result (default: the result itself); a reader
 * that reads results back later keeps where it is, such as the record's line
 *
 * @example
 * ```ts
 * const states = new Map<string, RequestLogState>();
 * for await (const record of streamRunJsonl(paths.attempts, AttemptRecordSchema))
 *   foldAttemptRecord(states, record);
 * ```
 */
export function foldAttemptRecord<R = ChatResult>(
  states: Map<string, RequestLogState<R>>,
  record: AttemptRecord,
  keep: (result: ChatResult) => R = (result) => result as R,
): void {
  states.set(record.requestId, nextRequestLogState(states.get(record.requestId), record, keep));
}

/** The state of one request after one more of its records (the transition of the one fold). */
function nextRequestLogState<R>(
  state: RequestLogState<R> | undefined,
  record: AttemptRecord,
  keep: (result: ChatResult) => R,
): RequestLogState<R> {
  const previous: RequestLogState<R> = state ?? EMPTY_STATE;
  const closes = previous.openAttemptId === record.attemptId ? null : previous.openAttemptId;
  if (record.phase === 'before_send')
    return {
      ...previous,
      attempts: previous.attempts + 1,
      openAttemptId: record.attemptId,
      openRequestSha256: record.requestSha256,
      openInputBytes: record.inputBytes,
    };
  if (record.phase === 'after_response') {
    const result = record.result ?? null;
    return {
      ...previous,
      openAttemptId: closes,
      result: result === null ? previous.result : keep(result),
      resultAttemptId: result === null ? previous.resultAttemptId : record.attemptId,
    };
  }
  return {
    ...previous,
    openAttemptId: closes,
    abandoned: previous.abandoned + 1,
    abandonedReason: record.reason ?? 'abandoned',
  };
}

/**
 * The outcome the log records for one request: `resolved` once any attempt has a result;
 * otherwise `abandoned` when an attempt was abandoned or is still open (possibly sent, outcome
 * unknown: a run killed and not yet resumed); `not_sent` for a request with no record.
 */
export function loggedOutcome(state: RequestLogState | undefined): RequestOutcome;
/** `loggedOutcome` of a state that keeps less than the result; `resultOf` reads it back. */
export function loggedOutcome<R>(
  state: RequestLogState<R> | undefined,
  resultOf: (kept: R) => ChatResult,
): RequestOutcome;
export function loggedOutcome<R>(
  state: RequestLogState<R> | undefined,
  resultOf: (kept: R) => ChatResult = (kept) => kept as ChatResult,
): RequestOutcome {
  if (state === undefined) return { kind: 'not_sent', reason: 'no attempt recorded' };
  if (state.result !== null) return { kind: 'resolved', result: resultOf(state.result) };
  if (state.openAttemptId !== null)
    return { kind: 'abandoned', reason: 'possibly sent; no response recorded' };
  return { kind: 'abandoned', reason: state.abandonedReason ?? 'abandoned' };
}

/** The outcome of every request that has a record in the attempt log (see `loggedOutcome`). */
export function outcomesFromAttemptLog(
  records: readonly AttemptRecord[],
): Map<string, RequestOutcome> {
  const outcomes = new Map<string, RequestOutcome>();
  for (const [requestId, state] of foldAttemptLog(records))
    outcomes.set(requestId, loggedOutcome(state));
  return outcomes;
}

/**
 * Reads `attempts.jsonl` with the run folder's one JSONL rule (`readRunJsonl`): a missing
 * file has no records, a torn final line is skipped.
 */
export async function readAttemptLog(path: string): Promise<AttemptRecord[]> {
  return (await readRunJsonl(path, AttemptRecordSchema)).records;
}
