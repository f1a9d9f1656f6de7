import { closeSync, openSync, readSync } from 'node:fs';

/** Bytes read from a file at a time: consecutive ranges come from one read. */
const WINDOW_BYTES = 1 << 20;
/** How far before a range a new window starts (a pass that steps back a little stays in it). */
const WINDOW_LOOK_BACK_BYTES = 1 << 17;

/**
 * Byte ranges of a file (already checked) read back through a 1 MiB window: a pass in file order
 * reads the file once, in large reads, and only the window is held.
 */
export class FileWindow {
  readonly #path: string;
  #window: { readonly start: number; readonly bytes: Buffer } | null = null;

  constructor(path: string) {
    this.#path = path;
  }

  /** Bytes `[start, end)` of the file (a view of the window: copy what is kept). */
  bytes(start: number, end: number): Buffer {
    const window = this.#window;
    if (window !== null && start >= window.start && end <= window.start + window.bytes.length)
      return window.bytes.subarray(start - window.start, end - window.start);
    const from = Math.max(0, start - WINDOW_LOOK_BACK_BYTES);
    const bytes = Buffer.allocUnsafe(Math.max(WINDOW_BYTES, end - from));
    const fd = openSync(this.#path, 'r');
    let read = 0;
    try {
      read = readSync(fd, bytes, 0, bytes.length, from);
    } finally {
      closeSync(fd);
    }
    this.#window = { start: from, bytes: bytes.subarray(0, read) };
    return this.#window.bytes.subarray(start - from, end - from);
  }
}
