import { open } from 'node:fs/promises';

const NEWLINE = 0x0a;
const CHUNK_BYTES = 1 << 20;

/** One line of a file: its UTF-8 text (without the newline) and where its bytes are. */
export interface FileLine {
  readonly text: string;
  /** Byte offset of the line's first byte. */
  readonly start: number;
  /** Byte offset of its newline (or of the end of the file for an unterminated last line). */
  readonly end: number;
  /** False for bytes after the last newline (a torn append in a JSONL log). */
  readonly terminated: boolean;
}

/**
 * The lines of a file, read in 1 MiB chunks: memory holds one chunk and the line being assembled,
 * whatever the file's size. Yields nothing for a file that does not exist.
 */
export async function* fileLines(path: string): AsyncGenerator<FileLine, void, undefined> {
  let file: Awaited<ReturnType<typeof open>>;
  try {
    file = await open(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  try {
    const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
    let pending: Buffer[] = [];
    let lineStart = 0;
    let position = 0;
    for (;;) {
      const { bytesRead } = await file.read(buffer, 0, CHUNK_BYTES, position);
      if (bytesRead === 0) break;
      const chunk = buffer.subarray(0, bytesRead);
      let start = 0;
      for (let nl = chunk.indexOf(NEWLINE); nl !== -1; nl = chunk.indexOf(NEWLINE, start)) {
        const text = Buffer.concat([...pending, chunk.subarray(start, nl)]).toString('utf8');
        pending = [];
        yield { text, start: lineStart, end: position + nl, terminated: true };
        start = nl + 1;
        lineStart = position + start;
      }
      // copied: `buffer` is reused by the next read
      if (start < bytesRead) pending.push(Buffer.from(chunk.subarray(start)));
      position += bytesRead;
    }
    if (pending.length > 0)
      yield {
        text: Buffer.concat(pending).toString('utf8'),
        start: lineStart,
        end: position,
        terminated: false,
      };
  } finally {
    await file.close();
  }
}
