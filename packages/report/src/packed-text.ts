import { deflateRawSync, inflateRawSync } from 'node:zlib';

/** Text appended below this many bytes stays as it is; a full chunk is compressed. */
const CHUNK_BYTES = 256 * 1024;

/**
 * A text built by appending, held deflated in chunks until it is read: a release's trace files
 * (a line per probe of every world) take about a tenth of their size while the rest of the
 * release is built, so the memory they need grows far slower than the run. Reading it back
 * (`text()`) gives exactly the appended text.
 */
export class PackedText {
  readonly #chunks: Buffer[] = [];
  #pending: string[] = [];
  #pendingLength = 0;

  /** Appends `text` (UTF-16 length counted; chunks are compressed as UTF-8). */
  append(text: string): void {
    this.#pending.push(text);
    this.#pendingLength += text.length;
    if (this.#pendingLength >= CHUNK_BYTES) this.#flush();
  }

  #flush(): void {
    if (this.#pending.length === 0) return;
    this.#chunks.push(deflateRawSync(Buffer.from(this.#pending.join(''), 'utf8'), { level: 1 }));
    this.#pending = [];
    this.#pendingLength = 0;
  }

  /**
   * Everything appended so far as UTF-8 chunks, one decompressed at a time. A chunk ends where an
   * append ended, so a text appended line by line comes back in whole lines.
   */
  *chunks(): IterableIterator<Buffer> {
    this.#flush();
    for (const chunk of this.#chunks) yield inflateRawSync(chunk);
  }

  /** Everything appended so far, in order. */
  text(): string {
    this.#flush();
    return Buffer.concat(this.#chunks.map((chunk) => inflateRawSync(chunk))).toString('utf8');
  }
}
