import { closeSync, openSync, readSync } from 'node:fs';
import { type AttemptRecord, AttemptRecordSchema, parseWith } from '@chi/spec';
import { FileWindow } from './file-window';
import { lazyArray } from './lazy-array';
import { RUN_FILE_NAME } from './run-files';

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

const ATTEMPTS_FILE = RUN_FILE_NAME.attempts;

/** Reads one line of the log back and returns its reply text (the file was checked when read). */
function readReplyText(path: string, start: number, end: number): string | null {
  const bytes = Buffer.allocUnsafe(end - start);
  const fd = openSync(path, 'r');
  try {
    readSync(fd, bytes, 0, bytes.length, start);
  } finally {
    closeSync(fd);
  }
  // validated when the folder was read; appends since then do not move earlier lines
  const record = JSON.parse(bytes.toString('utf8')) as { result?: { text?: unknown } | null };
  const text = record.result?.text;
  return typeof text === 'string' ? text : null;
}

/**
 * Makes `result.text` of a record read from its line when asked for, instead of held: reply texts
 * are most of a log's bytes (a memory-encode reply is a whole notebook), and scoring reads each
 * one once. The property stays enumerable, so the record serialises exactly as before.
 */
function readTextOnDemand(
  record: AttemptRecord,
  path: string,
  start: number,
  end: number,
  onRead: ((path: string) => void) | undefined,
): void {
  const result = record.result;
  if (result === null || result === undefined || result.text === null) return;
  Object.defineProperty(result, 'text', {
    enumerable: true,
    configurable: false,
    get: () => {
      onRead?.(`${ATTEMPTS_FILE}:${start}`);
      return readReplyText(path, start, end);
    },
  });
}

/**
 * The log's records by index, each parsed from its line when asked for. Reads go through a 1 MiB
 * window of the file, so a pass in file order reads the file once in large reads.
 */
class AttemptLineReader {
  readonly #path: string;
  readonly #ranges: LineRanges;
  readonly #onRead: ((path: string) => void) | undefined;
  // the window starts a little before the line: a pass in plan order (scoring) reaches the
  // log's lines nearly in order, a few lines back now and then (concurrent requests)
  readonly #window: FileWindow;

  constructor(path: string, ranges: LineRanges, onRead: ((path: string) => void) | undefined) {
    this.#path = path;
    this.#ranges = ranges;
    this.#onRead = onRead;
    this.#window = new FileWindow(path);
  }

  get length(): number {
    return this.#ranges.starts.length;
  }

  record(index: number): AttemptRecord {
    const start = this.#ranges.starts[index] as number;
    const end = this.#ranges.ends[index] as number;
    const text = this.#window.bytes(start, end).toString('utf8');
    // validated when the folder was read; parsed with the schema again so a record read here is
    // exactly the record the schema gives
    const record = parseWith(AttemptRecordSchema, JSON.parse(text), `${ATTEMPTS_FILE}:${start}`);
    readTextOnDemand(record, this.#path, start, end, this.#onRead);
    return record;
  }
}

/**
 * The records of an attempt log as a read-only array that holds only where each line is
 * (`ranges`): indexing it, iterating it or any array method (`filter`, `map`, `forEach`...)
 * parses the records from the file as they are reached. So the report's many passes over the log
 * (outcomes, usage, integrity, verify) never hold the whole log's records: memory grows by 16
 * bytes a record, not by the record. Each access gives a new object equal to the record; keep what
 * is needed, not the record. Writing to it throws a TypeError.
 */
export function attemptRecordsOnDisk(
  path: string,
  ranges: LineRanges,
  onRead?: (path: string) => void,
): readonly AttemptRecord[] {
  const reader = new AttemptLineReader(path, ranges, onRead);
  return lazyArray(
    reader.length,
    (index) => reader.record(index),
    `the attempt records read from ${RUN_FILE_NAME.attempts} are read-only`,
  );
}
