import { existsSync } from 'node:fs';
import {
  type JsonlReadResult,
  type JsonlStream,
  parseJsonl,
  readJsonl,
  streamJsonl,
} from '@chi/chis';
import type { z } from 'zod';

/**
 * Reads one JSONL file of a run folder (`attempts.jsonl`, `failures.jsonl`, `smoke.jsonl`,
 * `chis/<system>.jsonl`) with the one rule every reader of a run folder applies, the rule of
 * `@chi/chis`'s log:
 *
 * - every complete line (ending in a newline) is a record, validated with `schema`;
 * - bytes after the last newline are a torn write, skipped and reported in `tornTail`, **even when
 *   they parse**: an append is acknowledged only once its newline is written, and the writer
 *   truncates such a tail before its next append, so counting it would make a reader disagree
 *   with the file the runner goes on writing;
 * - a final newline-terminated line that is not UTF-8 JSON is a torn tail too;
 * - a bad line anywhere else is corruption: a `ValidationError` naming the file, line and offset.
 *
 * A file that does not exist has no records (a run that never wrote it).
 *
 * @example
 * ```ts
 * const { records, tornTail } = await readRunJsonl('run/attempts.jsonl', AttemptRecordSchema);
 * ```
 */
export async function readRunJsonl<S extends z.ZodType>(
  path: string,
  schema: S,
): Promise<JsonlReadResult<z.output<S>>> {
  if (!existsSync(path)) return { records: [], tornTail: null };
  return readJsonl(path, schema);
}

/**
 * Parses the text of a run-folder JSONL file already in memory with exactly the rules of
 * `readRunJsonl`; `source` names the file in errors.
 */
export function parseRunJsonl<S extends z.ZodType>(
  text: string | Uint8Array,
  schema: S,
  source: string,
): JsonlReadResult<z.output<S>> {
  return parseJsonl(text, schema, source);
}

/**
 * Streams one JSONL file of a run folder record by record, in constant memory, with exactly the
 * rules of `readRunJsonl` (`streamJsonl` of `@chi/chis`): for a log too large to hold, such
 * as the attempt log of a confirmatory run. A file that does not exist has no records.
 */
export async function* streamRunJsonl<S extends z.ZodType>(
  path: string,
  schema: S,
): AsyncGenerator<z.output<S>, void, undefined> {
  if (!existsSync(path)) return;
  const stream: JsonlStream<z.output<S>> = streamJsonl(path, schema);
  yield* stream;
}
