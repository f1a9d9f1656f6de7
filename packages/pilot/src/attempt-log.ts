import { existsSync } from 'node:fs';
import { readJsonl } from '@chi/chis';
import { type AttemptRecord, AttemptRecordSchema, type ChatResult } from '@chi/spec';

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
  readonly abandoned: number;
}

/** Folds the attempt log into one state per request ID. */
export function foldAttemptLog(records: readonly AttemptRecord[]): Map<string, RequestLogState> {
  const states = new Map<string, RequestLogState>();
  for (const record of records) {
    const previous = states.get(record.requestId) ?? {
      attempts: 0,
      openAttemptId: null,
      openRequestSha256: null,
      openInputBytes: 0,
      result: null,
      resultAttemptId: null,
      abandoned: 0,
    };
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
        openAttemptId: previous.openAttemptId === record.attemptId ? null : previous.openAttemptId,
        result: record.result,
        resultAttemptId: record.attemptId,
      });
    } else {
      states.set(record.requestId, {
        ...previous,
        openAttemptId: previous.openAttemptId === record.attemptId ? null : previous.openAttemptId,
        abandoned: previous.abandoned + 1,
      });
    }
  }
  return states;
}

/** Reads `attempts.jsonl` (a torn final line, left by a crash mid-append, is skipped). */
export async function readAttemptLog(path: string): Promise<AttemptRecord[]> {
  if (!existsSync(path)) return [];
  const { records } = await readJsonl(path, AttemptRecordSchema);
  return records;
}
