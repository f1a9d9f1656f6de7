import { open } from 'node:fs/promises';
import { InvalidArgumentError } from '@chi/spec';
import type { z } from 'zod';
import { createJsonlLineJudge, type JsonlReadResult, type TornTail } from './jsonl-lines';

const NEWLINE = 0x0a;
const DEFAULT_CHUNK_BYTES = 1 << 20;

/** Options of {@link streamJsonl}. */
export interface StreamJsonlOptions {
  /** Bytes read per system call (default 1 MiB). Memory use is this plus the longest line. */
  readonly chunkBytes?: number;
}

/** One line of a file as bytes, and where it is. */
export interface FileLineBytes {
  /** The line's bytes, without its newline (a copy: safe to keep). */
  readonly bytes: Buffer;
  /** Byte offset of the line's first byte. */
  readonly start: number;
  /** Byte offset of its newline (or of the end of the file for an unterminated last line). */
  readonly end: number;
  /** False for bytes after the last newline: what an append cut short leaves (a torn tail). */
  readonly terminated: boolean;
}

/**
 * The lines of a file, read in chunks (default 1 MiB): memory holds one chunk and the line being
 * assembled, whatever the file's size. The one chunked line reader of the toolkit: `streamJsonl`
 * judges its lines, and `@chi/run`'s `fileLines` gives them as text to every run-folder reader.
 * It judges nothing: what a torn tail or a damaged line is, is the caller's rule.
 *
 * @throws the open error, `ENOENT` included, for a file that cannot be read
 */
export async function* fileLineBytes(
  path: string,
  options: StreamJsonlOptions = {},
): AsyncGenerator<FileLineBytes, void, undefined> {
  const chunkBytes = options.chunkBytes ?? DEFAULT_CHUNK_BYTES;
  const file = await open(path, 'r');
  try {
    const buffer = Buffer.allocUnsafe(chunkBytes);
    // The line being assembled across chunk boundaries: copied parts and its file offset.
    let pending: Buffer[] = [];
    let lineStart = 0;
    let position = 0;
    for (;;) {
      const { bytesRead } = await file.read(buffer, 0, chunkBytes, position);
      if (bytesRead === 0) break;
      const chunk = buffer.subarray(0, bytesRead);
      let start = 0;
      for (let nl = chunk.indexOf(NEWLINE); nl !== -1; nl = chunk.indexOf(NEWLINE, start)) {
        const bytes = Buffer.concat([...pending, chunk.subarray(start, nl)]);
        pending = [];
        yield { bytes, start: lineStart, end: position + nl, terminated: true };
        start = nl + 1;
        lineStart = position + start;
      }
      // Copied: `buffer` is reused by the next read.
      if (start < bytesRead) pending.push(Buffer.from(chunk.subarray(start)));
      position += bytesRead;
    }
    if (pending.length > 0)
      yield { bytes: Buffer.concat(pending), start: lineStart, end: position, terminated: false };
  } finally {
    await file.close();
  }
}

/**
 * A lazily read JSONL file: iterate it with `for await`. Each iteration reads the file from the
 * start with constant memory (one chunk plus the line being assembled) and validates every line.
 * After an iteration runs to the end, `complete` is true and `tornTail` holds its verdict.
 */
export interface JsonlStream<T> extends AsyncIterable<T> {
  /** True once an iteration has reached the end of the file. */
  readonly complete: boolean;
  /** The torn tail found by the last complete iteration; null before one completes or when none. */
  readonly tornTail: TornTail | null;
}

/**
 * Streams the records of a JSONL file in constant memory, validating each line with `schema`.
 * A torn last line is skipped and reported in `stream.tornTail`; a corrupt line in the middle
 * throws a `ValidationError` naming its line number and byte offset. Node only.
 *
 * @example
 * ```ts
 * const stream = streamJsonl('run/chis.jsonl', ChisEntrySchema);
 * for await (const entry of stream) consume(entry);
 * if (stream.tornTail) warn(`skipped ${stream.tornTail.byteLength} torn bytes`);
 * ```
 */
export function streamJsonl<S extends z.ZodType>(
  path: string,
  schema: S,
  options: StreamJsonlOptions = {},
): JsonlStream<z.output<S>> {
  const chunkBytes = options.chunkBytes ?? DEFAULT_CHUNK_BYTES;
  if (!Number.isInteger(chunkBytes) || chunkBytes < 1) {
    throw new InvalidArgumentError(
      'chunkBytes',
      `expected a positive integer, found ${chunkBytes}`,
    );
  }
  let complete = false;
  let tornTail: TornTail | null = null;

  async function* iterate(): AsyncGenerator<z.output<S>, void, undefined> {
    complete = false;
    tornTail = null;
    const judge = createJsonlLineJudge(schema, path);
    let rest: FileLineBytes | null = null;
    let size = 0;
    for await (const line of fileLineBytes(path, { chunkBytes })) {
      size = line.terminated ? line.end + 1 : line.end;
      if (!line.terminated) {
        rest = line;
        break;
      }
      const judged = judge.line(line.bytes, line.start);
      if (judged !== null) yield judged.record;
    }
    tornTail = judge.finish(rest?.bytes ?? Buffer.alloc(0), rest?.start ?? size);
    complete = true;
  }

  return {
    [Symbol.asyncIterator]: iterate,
    get complete() {
      return complete;
    },
    get tornTail() {
      return tornTail;
    },
  };
}

/**
 * Reads a whole JSONL file: every valid record in order, and the torn tail (or null). Each line is
 * validated with `schema`; a corrupt line in the middle throws a `ValidationError` whose message
 * names the line number and byte offset. For files too large to hold, use {@link streamJsonl}.
 *
 * @example
 * ```ts
 * const { records, tornTail } = await readJsonl('run/attempts.jsonl', AttemptRecordSchema);
 * ```
 */
export async function readJsonl<S extends z.ZodType>(
  path: string,
  schema: S,
  options: StreamJsonlOptions = {},
): Promise<JsonlReadResult<z.output<S>>> {
  const stream = streamJsonl(path, schema, options);
  const records: z.output<S>[] = [];
  for await (const record of stream) records.push(record);
  return { records, tornTail: stream.tornTail };
}
