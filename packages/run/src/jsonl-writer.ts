import { type FileHandle, open, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { TornTail } from '@chi/chis';
import { decodeForReport, decodeJsonLine, serializeJsonlLine } from '@chi/chis/internal';
import { ChiError, InvalidArgumentError, ValidationError } from '@chi/spec';
import type { z } from 'zod';

/**
 * When appended lines are made durable with `fdatasync`:
 * - `every-line`: `append` resolves only after its line is written **and** synced to disk, so an
 *   acknowledged line survives a power loss. Concurrent appends share one write and one sync.
 * - `on-flush`: `append` resolves once its line is written to the operating system (it survives a
 *   crash of this process, not of the machine); `flush()` and `close()` sync.
 */
export type FsyncPolicy = 'every-line' | 'on-flush';

const FSYNC_POLICIES: readonly FsyncPolicy[] = ['every-line', 'on-flush'];

/** Options of {@link createJsonlWriter}. */
export interface JsonlWriterOptions<S extends z.ZodType> {
  /** The log file. Created if missing (its directory must exist). */
  readonly path: string;
  /** Every record is validated with this schema, in the form it will be read back. */
  readonly schema: S;
  readonly fsync: FsyncPolicy;
  /** How validation errors name a record (default `JSONL record for <path>`). */
  readonly subject?: string;
}

/**
 * An append-only JSONL log. One line per record, never interleaved, never rewritten. At most one
 * writer per file per process (a second `createJsonlWriter` on the same path is refused until the
 * first is closed); across processes the caller must ensure a single writer.
 */
export interface JsonlWriter<T> {
  /** Absolute path of the log. */
  readonly path: string;
  readonly fsync: FsyncPolicy;
  /**
   * The torn tail this writer removed when it opened the file (a crash left half a line), or null.
   * Log it: these bytes were never an acknowledged record and are gone from the file.
   */
  readonly recoveredTornTail: TornTail | null;
  /**
   * Validates `record`, then appends it as one line. Resolves once the line is written (and synced
   * under `every-line`). Rejects with a `ValidationError` naming the bad field, and then nothing is
   * written. After a write or sync error the writer is failed: this and every later append reject.
   */
  append(record: T): Promise<void>;
  /** Resolves once every line appended before the call is written and synced. */
  flush(): Promise<void>;
  /**
   * Flushes, closes the file and releases the path. Later appends reject. Rejects with the write
   * error if the writer had failed (after releasing the file). Calling it again returns the same
   * promise.
   */
  close(): Promise<void>;
}

const NEWLINE = 0x0a;
const TAIL_CHUNK_BYTES = 64 * 1024;
/** A batch stops growing at this many UTF-16 units so a burst of appends cannot build one huge buffer. */
const MAX_BATCH_CHARS = 4 * 1024 * 1024;

/** Absolute paths with an open writer in this process. */
const openPaths = new Set<string>();

async function readRange(file: FileHandle, start: number, end: number): Promise<Buffer> {
  const bytes = Buffer.alloc(end - start);
  let filled = 0;
  while (filled < bytes.length) {
    const { bytesRead } = await file.read(bytes, filled, bytes.length - filled, start + filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return bytes.subarray(0, filled);
}

/** Offset of the last newline strictly before `end`, or -1. Reads backwards in chunks. */
async function lastNewlineBefore(file: FileHandle, end: number): Promise<number> {
  let chunkEnd = end;
  while (chunkEnd > 0) {
    const chunkStart = Math.max(0, chunkEnd - TAIL_CHUNK_BYTES);
    const index = (await readRange(file, chunkStart, chunkEnd)).lastIndexOf(NEWLINE);
    if (index !== -1) return chunkStart + index;
    chunkEnd = chunkStart;
  }
  return -1;
}

/**
 * Applies the reader's torn-tail rule to the end of an existing log: how many bytes to keep, and
 * what is torn. Refuses (throws) when the line before a torn tail is itself not JSON, because the
 * reader would reject that log as corrupt in the middle and appending cannot repair it.
 */
async function inspectTail(
  file: FileHandle,
  sizeBytes: number,
  path: string,
): Promise<{ keepBytes: number; torn: TornTail | null }> {
  if (sizeBytes === 0) return { keepBytes: 0, torn: null };
  const lastByte = (await readRange(file, sizeBytes - 1, sizeBytes))[0];
  if (lastByte !== NEWLINE) {
    const newline = await lastNewlineBefore(file, sizeBytes);
    const start = newline + 1;
    if (newline >= 0) {
      const previousStart = (await lastNewlineBefore(file, newline)) + 1;
      const previous = decodeJsonLine(await readRange(file, previousStart, newline));
      if (!previous.ok) {
        throw new ValidationError(`line at byte offset ${previousStart} of ${path}`, [
          {
            path: '',
            message: `${previous.problem}; the log is corrupt before its torn tail, refusing to append`,
          },
        ]);
      }
    }
    const rest = await readRange(file, start, sizeBytes);
    return {
      keepBytes: start,
      torn: { byteOffset: start, byteLength: sizeBytes - start, text: decodeForReport(rest) },
    };
  }
  const start = (await lastNewlineBefore(file, sizeBytes - 1)) + 1;
  const line = await readRange(file, start, sizeBytes - 1);
  if (decodeJsonLine(line).ok) return { keepBytes: sizeBytes, torn: null };
  return {
    keepBytes: start,
    torn: { byteOffset: start, byteLength: sizeBytes - start, text: decodeForReport(line) },
  };
}

/** Makes a newly created file's directory entry durable. Best effort: not every platform allows it. */
async function syncDirectory(directory: string): Promise<void> {
  try {
    const handle = await open(directory, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // Windows cannot open a directory; the file itself is still synced.
  }
}

async function fileExists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}

/** A queued line, or (line null) a barrier that asks for a sync of everything before it. */
interface QueueItem {
  readonly line: string | null;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

class FileJsonlWriter<T> implements JsonlWriter<T> {
  readonly path: string;
  readonly fsync: FsyncPolicy;
  readonly recoveredTornTail: TornTail | null;
  readonly #file: FileHandle;
  readonly #serialize: (record: T) => string;
  readonly #queue: QueueItem[] = [];
  #draining = false;
  #unsynced = false;
  #sizeBytes: number;
  #failure: ChiError | null = null;
  #closing: Promise<void> | null = null;

  constructor(args: {
    path: string;
    fsync: FsyncPolicy;
    file: FileHandle;
    sizeBytes: number;
    recoveredTornTail: TornTail | null;
    serialize: (record: T) => string;
  }) {
    this.path = args.path;
    this.fsync = args.fsync;
    this.#file = args.file;
    this.#sizeBytes = args.sizeBytes;
    this.recoveredTornTail = args.recoveredTornTail;
    this.#serialize = args.serialize;
  }

  append(record: T): Promise<void> {
    if (this.#failure !== null) return Promise.reject(this.#failure);
    if (this.#closing !== null) {
      return Promise.reject(new ChiError(`JSONL writer for ${this.path} is closed`));
    }
    let line: string;
    try {
      line = this.#serialize(record);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#enqueue(line);
  }

  flush(): Promise<void> {
    if (this.#failure !== null) return Promise.reject(this.#failure);
    if (this.#closing !== null) {
      return Promise.reject(new ChiError(`JSONL writer for ${this.path} is closed`));
    }
    return this.#enqueue(null);
  }

  close(): Promise<void> {
    if (this.#closing === null) {
      const barrier = this.#failure === null ? this.#enqueue(null) : Promise.resolve();
      this.#closing = barrier
        .finally(async () => {
          try {
            await this.#file.close();
          } finally {
            openPaths.delete(this.path);
          }
        })
        .then(() => {
          if (this.#failure !== null) throw this.#failure;
        });
    }
    return this.#closing;
  }

  #enqueue(line: string | null): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.#queue.push({ line, resolve, reject });
      if (!this.#draining) {
        this.#draining = true;
        // One microtask of delay lets a synchronous burst of appends join the first batch.
        queueMicrotask(() => void this.#drain());
      }
    });
  }

  async #drain(): Promise<void> {
    while (this.#queue.length > 0) {
      const first = this.#queue[0]!;
      if (first.line === null) {
        this.#queue.shift();
        await this.#settle([first], async () => {
          if (this.#unsynced) await this.#file.datasync();
          this.#unsynced = false;
        });
        continue;
      }
      // One splice per batch: shifting item by item is quadratic on a long queue.
      let end = 0;
      let batchChars = 0;
      while (end < this.#queue.length && batchChars < MAX_BATCH_CHARS) {
        const line = this.#queue[end]!.line;
        if (line === null) break;
        batchChars += line.length;
        end += 1;
      }
      const batch = this.#queue.splice(0, end);
      const text = batch.map((item) => item.line).join('');
      await this.#settle(batch, () => this.#write(Buffer.from(text, 'utf8')));
    }
    this.#draining = false;
  }

  async #write(bytes: Buffer): Promise<void> {
    const sizeBefore = this.#sizeBytes;
    try {
      let written = 0;
      while (written < bytes.length) {
        const { bytesWritten } = await this.#file.write(bytes, written, bytes.length - written);
        written += bytesWritten;
      }
      this.#sizeBytes += bytes.length;
      if (this.fsync === 'every-line') await this.#file.datasync();
      else this.#unsynced = true;
    } catch (error) {
      // Remove a partial batch so the file keeps only whole lines (best effort: the disk may be gone).
      await this.#file.truncate(sizeBefore).catch(() => undefined);
      this.#sizeBytes = sizeBefore;
      throw error;
    }
  }

  /** Runs `work` for `items`; on failure fails the writer and rejects these and all queued items. */
  async #settle(items: readonly QueueItem[], work: () => Promise<void>): Promise<void> {
    if (this.#failure === null) {
      try {
        await work();
        for (const item of items) item.resolve();
        return;
      } catch (error) {
        this.#failure = new ChiError(
          `JSONL writer for ${this.path} failed and accepts no more records: ${error instanceof Error ? error.message : String(error)}`,
          { cause: error },
        );
      }
    }
    for (const item of [...items, ...this.#queue.splice(0)]) item.reject(this.#failure);
  }
}

/**
 * Opens (or creates) an append-only JSONL log validated by `schema`. If a crash left a torn last
 * line, it is truncated away first and reported in `writer.recoveredTornTail`, so the next append
 * starts on a fresh line and is never merged with the fragment. Node only.
 *
 * @throws `InvalidArgumentError` for bad options or a path that already has an open writer;
 *   `ValidationError` when the log is corrupt before its torn tail.
 * @example
 * ```ts
 * const log = await createJsonlWriter({ path: 'run/chis.jsonl', schema: ChisEntrySchema, fsync: 'every-line' });
 * await log.append(entry); // durable when this resolves
 * await log.close();
 * ```
 */
export async function createJsonlWriter<S extends z.ZodType>(
  options: JsonlWriterOptions<S>,
): Promise<JsonlWriter<z.input<S>>> {
  const { path, schema, fsync } = options;
  if (typeof path !== 'string' || path === '') {
    throw new InvalidArgumentError(
      'path',
      `expected a non-empty file path, found ${JSON.stringify(path)}`,
    );
  }
  if (!FSYNC_POLICIES.includes(fsync)) {
    throw new InvalidArgumentError(
      'fsync',
      `expected 'every-line' or 'on-flush', found ${JSON.stringify(fsync)}`,
    );
  }
  const absolute = resolve(path);
  if (openPaths.has(absolute)) {
    throw new InvalidArgumentError(
      'path',
      `a JSONL writer for ${absolute} is already open in this process; close it first`,
    );
  }
  openPaths.add(absolute);
  try {
    const existed = await fileExists(absolute);
    const file = await open(absolute, 'a+');
    try {
      const { size } = await file.stat();
      const { keepBytes, torn } = await inspectTail(file, size, absolute);
      if (torn !== null) {
        await file.truncate(keepBytes);
        await file.datasync();
      }
      if (!existed) await syncDirectory(dirname(absolute));
      const subject = options.subject ?? `JSONL record for ${absolute}`;
      return new FileJsonlWriter<z.input<S>>({
        path: absolute,
        fsync,
        file,
        sizeBytes: keepBytes,
        recoveredTornTail: torn,
        serialize: (record) => serializeJsonlLine(schema, record, subject),
      });
    } catch (error) {
      await file.close();
      throw error;
    }
  } catch (error) {
    openPaths.delete(absolute);
    throw error;
  }
}
