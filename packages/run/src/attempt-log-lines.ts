import type { TornTail } from '@chi/chis';
import { createJsonlLineJudge, fileLineBytes } from '@chi/chis/internal';
import { type AttemptRecord, AttemptRecordSchema } from '@chi/spec';

/** One complete (newline-terminated) line of the attempt log, as the one reader gives it. */
export interface AttemptLogLine {
  /** The line's number in the file, from 1. */
  readonly number: number;
  /** Byte offset of the line's first byte. */
  readonly start: number;
  /** Byte offset of its newline. */
  readonly end: number;
  /** The line's bytes (without the newline); a copy, safe to keep. */
  readonly bytes: Buffer;
  /**
   * The record, validated with `AttemptRecordSchema`; null for a line that is not UTF-8 JSON,
   * which is a torn tail only when no complete line follows it (the next line throws otherwise).
   */
  readonly record: AttemptRecord | null;
  /** The JSON value the record was validated from (what the hash chain hashes); else undefined. */
  readonly value: unknown;
}

/** What reading the attempt log to its end found after the last complete record. */
export interface AttemptLogEnd {
  /** The torn tail that was skipped, or null. */
  readonly tornTail: TornTail | null;
}

/**
 * The attempt log line by line, in one streamed pass: the one reader of `attempts.jsonl` that
 * scoring (`readAttemptLogLean`), planned outcomes (its fold) and the live view share, so the
 * run folder's torn-tail rule is applied here and nowhere else:
 *
 * - every complete line is a record, validated with `AttemptRecordSchema`;
 * - bytes after the last newline, or a last complete line that is not UTF-8 JSON, are a torn
 *   tail: skipped (an append is acknowledged only once its newline is written);
 * - a line that is not a valid record anywhere else is damage: a `ValidationError` naming
 *   `source` (the file), the line number and its byte offset.
 *
 * Memory holds one 1 MiB chunk and the line being read. A file that does not exist has no lines.
 *
 * @param source - how errors name the file (its path, or its name in the run folder)
 * @throws `ValidationError` (`@chi/spec`) for a damaged line that is not the last
 */
export async function* attemptLogLines(
  path: string,
  source: string = path,
): AsyncGenerator<AttemptLogLine, AttemptLogEnd, undefined> {
  const judge = createJsonlLineJudge(AttemptRecordSchema, source);
  let rest: { bytes: Buffer; start: number } | null = null;
  let size = 0;
  let number = 0;
  try {
    for await (const line of fileLineBytes(path)) {
      if (!line.terminated) {
        rest = { bytes: line.bytes, start: line.start };
        size = line.end;
        break;
      }
      size = line.end + 1;
      number += 1;
      const judged = judge.line(line.bytes, line.start);
      yield {
        number,
        start: line.start,
        end: line.end,
        bytes: line.bytes,
        record: judged === null ? null : (judged.record as AttemptRecord),
        value: judged?.value,
      };
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { tornTail: null };
    throw error;
  }
  return { tornTail: judge.finish(rest?.bytes ?? Buffer.alloc(0), rest?.start ?? size) };
}
