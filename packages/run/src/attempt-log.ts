import type { AttemptRecord, ChatResult } from '@chi/spec';
import { AttemptRecordSchema } from '@chi/spec';
import type { RequestOutcome } from './request-outcome';
import { readRunJsonl } from './run-jsonl';

/** What the attempt log says about one registered request. */
export interface RequestLogState {
  /** `before_send` records so far (attempts started). */
  readonly attempts: number;
  /** The attempt ID of a `before_send` with neither `after_response` nor `abandoned`; else null. */
  readonly openAttemptId: string | null;
  /** Request hash and input bytes of that open attempt's `before_send`. */
  readonly openRequestSha256: string | null;
  readonly openInputBytes: number;
  /** The last `after_response` result, or null. */
  readonly result: ChatResult | null;
  /** Attempt ID of that result. */
  readonly resultAttemptId: string | null;
  /** `abandoned` records so far. */
  readonly abandoned: number;
  /** The reason of the last `abandoned` record, or null. */
  readonly abandonedReason: string | null;
}

const EMPTY_STATE: RequestLogState = {
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
 * Folds the attempt log into one state per request ID, in file order: a `before_send` opens an
 * attempt, its `after_response` closes it with a result (the last result wins: a scripted request
 * re-sent after an interruption), an `abandoned` closes it without one. The runner resumes from
 * this fold and the report scores from it, so both read a log the same way.
 */
export function foldAttemptLog(records: readonly AttemptRecord[]): Map<string, RequestLogState> {
  const states = new Map<string, RequestLogState>();
  for (const record of records) foldAttemptRecord(states, record);
  return states;
}

/**
 * One step of {@link foldAttemptLog}: folds the next record of the log, in file order, into
 * `states`. For a log streamed record by record instead of held whole.
 */
export function foldAttemptRecord(
  states: Map<string, RequestLogState>,
  record: AttemptRecord,
): void {
  const previous = states.get(record.requestId) ?? EMPTY_STATE;
  const closes = previous.openAttemptId === record.attemptId ? null : previous.openAttemptId;
  if (record.phase === 'before_send') {
    states.set(record.requestId, {
      ...previous,
      attempts: previous.attempts + 1,
      openAttemptId: record.attemptId,
      openRequestSha256: record.requestSha256,
      openInputBytes: record.inputBytes,
    });
  } else if (record.phase === 'after_response') {
    states.set(record.requestId, {
      ...previous,
      openAttemptId: closes,
      result: record.result ?? previous.result,
      resultAttemptId: record.result === null ? previous.resultAttemptId : record.attemptId,
    });
  } else {
    states.set(record.requestId, {
      ...previous,
      openAttemptId: closes,
      abandoned: previous.abandoned + 1,
      abandonedReason: record.reason ?? 'abandoned',
    });
  }
}

/**
 * The outcome the log records for one request: `resolved` once any attempt has a result;
 * otherwise `abandoned` when an attempt was abandoned or is still open (possibly sent, outcome
 * unknown: a run killed and not yet resumed); `not_sent` for a request with no record.
 */
export function loggedOutcome(state: RequestLogState | undefined): RequestOutcome {
  if (state === undefined) return { kind: 'not_sent', reason: 'no attempt recorded' };
  if (state.result !== null) return { kind: 'resolved', result: state.result };
  if (state.openAttemptId !== null)
    return { kind: 'abandoned', reason: 'possibly sent; no response recorded' };
  return { kind: 'abandoned', reason: state.abandonedReason ?? 'abandoned' };
}

/** The outcome of every request that has a record in the attempt log (see {@link loggedOutcome}). */
export function outcomesFromAttemptLog(
  records: readonly AttemptRecord[],
): Map<string, RequestOutcome> {
  const outcomes = new Map<string, RequestOutcome>();
  for (const [requestId, state] of foldAttemptLog(records))
    outcomes.set(requestId, loggedOutcome(state));
  return outcomes;
}

/**
 * Reads `attempts.jsonl` with the run folder's one JSONL rule ({@link readRunJsonl}): a missing
 * file has no records, a torn final line is skipped.
 */
export async function readAttemptLog(path: string): Promise<AttemptRecord[]> {
  return (await readRunJsonl(path, AttemptRecordSchema)).records;
}
