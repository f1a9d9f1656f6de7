import { formatIssues, ValidationError, type ValidationIssue } from '@chi/spec';
import type { z } from 'zod';

/**
 * Bytes at the end of a JSONL file that do not form an acknowledged record: what a crash in the
 * middle of an append leaves behind. Readers report it and skip it; a writer reopening the file
 * truncates it before appending, so it can never be merged with a later line.
 *
 * The torn tail is either the bytes after the last newline (a line whose terminating newline was
 * never written, whatever those bytes are), or, when the file ends with a newline, its last line if
 * that line is not valid UTF-8 JSON.
 */
export interface TornTail {
  /** Offset of the first torn byte; truncating the file to this length removes the tail. */
  readonly byteOffset: number;
  /** Number of torn bytes, from `byteOffset` to the end of the file (a final newline included). */
  readonly byteLength: number;
  /** The torn bytes as UTF-8 text (undecodable sequences become U+FFFD), without a final newline. */
  readonly text: string;
}

/** What reading a JSONL file or text yields: every valid record, in order, and the torn tail. */
export interface JsonlReadResult<T> {
  readonly records: T[];
  readonly tornTail: TornTail | null;
}

const NEWLINE = 0x0a;
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });
const lenientUtf8 = new TextDecoder('utf-8');
const utf8Encoder = new TextEncoder();

/** Outcome of decoding one line as UTF-8 JSON. */
type JsonLine =
  | { readonly ok: true; readonly value: unknown; readonly text: string }
  | { readonly ok: false; readonly problem: string };

/**
 * Decodes one line (without its newline) as strict UTF-8 and parses it as JSON.
 * @internal shared by the reader and the writer's tail check so both judge a line the same way.
 */
export function decodeJsonLine(bytes: Uint8Array): JsonLine {
  let text: string;
  try {
    text = strictUtf8.decode(bytes);
  } catch {
    return { ok: false, problem: 'not valid UTF-8' };
  }
  if (text.trim() === '') return { ok: false, problem: 'empty line, expected a JSON value' };
  try {
    return { ok: true, value: JSON.parse(text), text };
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    return {
      ok: false,
      problem: `not valid JSON (${detail}); line starts with ${JSON.stringify(text.slice(0, 60))}`,
    };
  }
}

/** Lenient UTF-8 decoding for reporting torn bytes. @internal */
export function decodeForReport(bytes: Uint8Array): string {
  return lenientUtf8.decode(bytes);
}

/** Where the first own `__proto__` key sits in a parsed JSON value, or null. */
function findProtoKey(value: unknown, path: string): string | null {
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      const found = findProtoKey(value[index], `${path}[${index}]`);
      if (found !== null) return found;
    }
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  for (const key of Object.keys(value)) {
    const child = path === '' ? key : `${path}.${key}`;
    if (key === '__proto__') return child;
    const found = findProtoKey((value as Record<string, unknown>)[key], child);
    if (found !== null) return found;
  }
  return null;
}

/**
 * JSON.parse makes `"__proto__"` an own key, and zod (like most object-building readers) silently
 * drops it while parsing a record. Such a key would pass validation and vanish on read, so it is
 * refused instead. The substring test keeps the exact walk off the hot path.
 */
function protoKeyIssue(json: string, parsed: unknown): ValidationIssue | null {
  if (!json.includes('"__proto__":')) return null;
  const path = findProtoKey(parsed, '');
  if (path === null) return null;
  return {
    path,
    message: 'the key "__proto__" cannot be stored: JSON readers and zod silently drop it on read',
  };
}

/**
 * Serializes one record to a JSONL line (with its newline) after validating it **as it will be read
 * back**: the record goes through `JSON.stringify`, then `JSON.parse`, then the schema. Values that
 * do not survive JSON (a `Date`, `NaN`, `undefined` in an array, a `"__proto__"` key) are refused
 * here rather than discovered by a reader. `-0` is written as `0` (JSON has no negative zero).
 *
 * @throws `ValidationError` (from `@chi/spec`) naming every bad field; nothing is returned to write.
 * @example
 * ```ts
 * serializeJsonlLine(ChisEntrySchema, entry, 'CHIS entry'); // '{"kind":"chis-entry",...}\n'
 * ```
 */
export function serializeJsonlLine<S extends z.ZodType>(
  schema: S,
  record: unknown,
  subject: string,
): string {
  let json: string | undefined;
  try {
    json = JSON.stringify(record);
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new ValidationError(
      subject,
      [{ path: '', message: `not serializable as JSON: ${detail}` }],
      {
        cause: error,
      },
    );
  }
  if (json === undefined) {
    throw new ValidationError(subject, [
      { path: '', message: `expected a JSON value, found ${typeof record}` },
    ]);
  }
  const parsed: unknown = JSON.parse(json);
  const result = schema.safeParse(parsed);
  if (!result.success) {
    const asGiven = schema.safeParse(record);
    if (asGiven.success) {
      const issues = formatIssues(result.error.issues).map((issue) => ({
        path: issue.path,
        message: `${issue.message} (the value as given is valid but changes when written as JSON, e.g. a Date, NaN or undefined)`,
      }));
      throw new ValidationError(subject, issues, { cause: result.error });
    }
    throw new ValidationError(subject, formatIssues(asGiven.error.issues), {
      cause: asGiven.error,
    });
  }
  const protoIssue = protoKeyIssue(json, parsed);
  if (protoIssue !== null) throw new ValidationError(subject, [protoIssue]);
  return `${json}\n`;
}

/**
 * The line-by-line judge shared by every JSONL reader. Feed it each newline-terminated line (without
 * the newline) and finally the bytes after the last newline. A line that is not UTF-8 JSON is held:
 * if another line follows it is corruption in the middle (an error naming its line number); if it is
 * the last line it is a torn tail. A line that is JSON but fails the schema is always an error.
 * @internal
 */
export interface JsonlLineJudge<T> {
  /**
   * Judges one complete line; returns the record (and the JSON value it was validated from, for a
   * reader that hashes the line's own value), or null when the line is held as possibly torn.
   */
  line(
    bytes: Uint8Array,
    byteOffset: number,
  ): { readonly record: T; readonly value: unknown } | null;
  /** Ends the input: `rest` are the bytes after the last newline (possibly empty). */
  finish(rest: Uint8Array, byteOffset: number): TornTail | null;
}

interface HeldLine {
  readonly lineNumber: number;
  readonly byteOffset: number;
  readonly bytes: Uint8Array;
  readonly problem: string;
}

/** Creates the line judge for one pass over one source (a file path or a label). @internal */
export function createJsonlLineJudge<S extends z.ZodType>(
  schema: S,
  source: string,
): JsonlLineJudge<z.output<S>> {
  let lineNumber = 0;
  let held: HeldLine | null = null;
  const where = (line: number, offset: number) =>
    `line ${line} of ${source} (byte offset ${offset})`;
  const corrupt = (line: HeldLine) =>
    new ValidationError(where(line.lineNumber, line.byteOffset), [
      { path: '', message: line.problem },
    ]);

  return {
    line(bytes, byteOffset) {
      if (held !== null) throw corrupt(held);
      lineNumber += 1;
      const decoded = decodeJsonLine(bytes);
      if (!decoded.ok) {
        held = { lineNumber, byteOffset, bytes, problem: decoded.problem };
        return null;
      }
      const result = schema.safeParse(decoded.value);
      if (!result.success) {
        throw new ValidationError(
          where(lineNumber, byteOffset),
          formatIssues(result.error.issues),
          {
            cause: result.error,
          },
        );
      }
      // The writer refuses "__proto__" keys; a file written by other means is checked here so that
      // data never disappears silently on read.
      const protoIssue = protoKeyIssue(decoded.text, decoded.value);
      if (protoIssue !== null)
        throw new ValidationError(where(lineNumber, byteOffset), [protoIssue]);
      return { record: result.data, value: decoded.value };
    },
    finish(rest, byteOffset) {
      if (rest.length > 0) {
        if (held !== null) throw corrupt(held);
        return { byteOffset, byteLength: rest.length, text: decodeForReport(rest) };
      }
      if (held === null) return null;
      const tail: HeldLine = held;
      return {
        byteOffset: tail.byteOffset,
        byteLength: tail.bytes.length + 1,
        text: decodeForReport(tail.bytes),
      };
    },
  };
}

/**
 * Parses JSONL held in memory (a string or UTF-8 bytes) with the same rules as {@link readJsonl}:
 * every line validated, a torn last line reported and skipped, a corrupt line in the middle an
 * error naming its line number. Runs anywhere (no Node built-ins).
 *
 * @param source - how errors name the input, e.g. a URL or file name.
 * @example
 * ```ts
 * const { records, tornTail } = parseJsonl(await response.text(), ChisEntrySchema, 'chis.jsonl');
 * ```
 */
export function parseJsonl<S extends z.ZodType>(
  input: string | Uint8Array,
  schema: S,
  source = 'JSONL input',
): JsonlReadResult<z.output<S>> {
  const bytes = typeof input === 'string' ? utf8Encoder.encode(input) : input;
  const judge = createJsonlLineJudge(schema, source);
  const records: z.output<S>[] = [];
  let start = 0;
  let newline = bytes.indexOf(NEWLINE, start);
  while (newline !== -1) {
    const judged = judge.line(bytes.subarray(start, newline), start);
    if (judged !== null) records.push(judged.record);
    start = newline + 1;
    newline = bytes.indexOf(NEWLINE, start);
  }
  return { records, tornTail: judge.finish(bytes.subarray(start), start) };
}
