import { deflateRawSync, inflateRawSync } from 'node:zlib';

/** Bytes appended below this stay as they are; a full chunk is compressed. */
const CHUNK_BYTES = 64 * 1024;

/**
 * A text built by appending, held deflated in chunks until it is read: a release's trace files
 * (a line per probe of every world) take about a tenth of their size while the rest of the
 * release is built, so the memory they need grows far slower than the run. Reading it back
 * (`text()`) gives exactly the appended text.
 */
export class PackedText {
  readonly #chunks: Buffer[] = [];
  // UTF-8 bytes, not the strings: a string built by concatenation (canonical JSON) is a rope of
  // many small pieces that takes several times its length until it is flattened
  #pending: Buffer[] = [];
  #pendingBytes = 0;

  /** Appends `text`. */
  append(text: string): void {
    const bytes = Buffer.from(text, 'utf8');
    this.#pending.push(bytes);
    this.#pendingBytes += bytes.length;
    if (this.#pendingBytes >= CHUNK_BYTES) this.#flush();
  }

  #flush(): void {
    if (this.#pending.length === 0) return;
    this.#chunks.push(deflateRawSync(Buffer.concat(this.#pending), { level: 1 }));
    this.#pending = [];
    this.#pendingBytes = 0;
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
