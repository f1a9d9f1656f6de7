import { closeSync, openSync, readSync } from 'node:fs';

/** Bytes read from a file at a time: consecutive ranges come from one read. */
const WINDOW_BYTES = 1 << 20;
/** How far before a range a new window starts (a pass that steps back a little stays in it). */
const WINDOW_LOOK_BACK_BYTES = 1 << 17;
/**
 * How far past the last range read the next one may start and still be taken for a pass in file
 * order (concurrent requests interleave their records a little): such a range starts a new
 * window; a range elsewhere is read alone, so a scattered read never re-reads a whole window.
 */
const SEQUENTIAL_GAP_BYTES = 1 << 16;

/** Reads `length` bytes of `path` from `position` (one open, one read). */
function readAt(path: string, position: number, length: number): Buffer {
  const bytes = Buffer.allocUnsafe(length);
  const fd = openSync(path, 'r');
  let read = 0;
  try {
    read = readSync(fd, bytes, 0, bytes.length, position);
  } finally {
    closeSync(fd);
  }
  return bytes.subarray(0, read);
}

/**
 * Byte ranges of a file (already checked) read back through a 1 MiB window: a pass in file order
 * reads the file once, in large reads, and only the window is held. A range asked for out of
 * order (away from the window and from the last range read) is read on its own and leaves the
 * window as it is: a pass in another order reads each range once, not a window per range.
 */
export class FileWindow {
  readonly #path: string;
  #window: { readonly start: number; readonly bytes: Buffer } | null = null;
  /** Where the last range asked for ended. */
  #lastEnd = -1;

  constructor(path: string) {
    this.#path = path;
  }

  /** Bytes `[start, end)` of the file (a view of the window, or a fresh buffer: copy what is kept). */
  bytes(start: number, end: number): Buffer {
    const lastEnd = this.#lastEnd;
    this.#lastEnd = end;
    const window = this.#window;
    if (window !== null && start >= window.start && end <= window.start + window.bytes.length)
      return window.bytes.subarray(start - window.start, end - window.start);
    const sequential =
      window === null || (start >= lastEnd && start - lastEnd <= SEQUENTIAL_GAP_BYTES);
    if (!sequential) return readAt(this.#path, start, end - start);
    const from = Math.max(0, start - WINDOW_LOOK_BACK_BYTES);
    this.#window = {
      start: from,
      bytes: readAt(this.#path, from, Math.max(WINDOW_BYTES, end - from)),
    };
    return this.#window.bytes.subarray(start - from, end - from);
  }
}
