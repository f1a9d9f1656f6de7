import { fileLineBytes } from '@chi/chis/internal';

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
 * The lines of a run-folder file as text, read in 1 MiB chunks by the toolkit's one chunked line
 * reader (`fileLineBytes` of `@chi/chis`): memory holds one chunk and the line being assembled,
 * whatever the file's size. Yields nothing for a file that does not exist.
 *
 * It judges no line. Every reader that does applies the run folder's one JSONL rule
 * (`readRunJsonl`): a last line without its newline is a torn tail, skipped; a line that is
 * not a valid record anywhere before it is damage, an error naming the file and line.
 */
export async function* fileLines(path: string): AsyncGenerator<FileLine, void, undefined> {
  const lines = fileLineBytes(path);
  try {
    for await (const line of lines)
      yield {
        text: line.bytes.toString('utf8'),
        start: line.start,
        end: line.end,
        terminated: line.terminated,
      };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
}
