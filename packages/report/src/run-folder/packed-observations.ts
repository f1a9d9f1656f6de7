import { deserialize, serialize } from 'node:v8';
import { deflateRawSync, inflateRawSync } from 'node:zlib';

/** How many observations one packed chunk holds (a few blocks' worth; small next to a world). */
const DEFAULT_CHUNK = 64;

/**
 * A list of observations held packed: each one in V8's structured serialisation as it is added,
 * every {@link DEFAULT_CHUNK} of them deflated together. Reading it back gives values equal to those added
 * in every respect the object path could see (key order, `undefined` members, `-0`, `NaN`), each
 * read a fresh copy. A run's scored observations are about 0.1 MB a world as objects and a few
 * kilobytes a world packed, so the scores no longer grow the live heap with the run; whoever
 * reads them holds one materialised copy only while it uses it.
 */
export class PackedObservations<T> {
  readonly #chunkSize: number;
  readonly #chunks: Buffer[] = [];
  /** The serialised observations of the chunk being filled. */
  #pending: Buffer[] = [];
  #length = 0;

  /** @param chunkSize - observations per packed chunk (at least 1). */
  constructor(chunkSize: number = DEFAULT_CHUNK) {
    if (!Number.isInteger(chunkSize) || chunkSize < 1)
      throw new RangeError(`chunkSize must be a positive integer, got ${chunkSize}`);
    this.#chunkSize = chunkSize;
  }

  /** How many observations were added. */
  get length(): number {
    return this.#length;
  }

  /** Adds observations at the end, in order, as they are now (later changes to them are not seen). */
  push(observations: Iterable<T>): void {
    for (const observation of observations) {
      this.#pending.push(serialize(observation));
      this.#length++;
      if (this.#pending.length >= this.#chunkSize) this.#pack();
    }
  }

  /** Packs the observations added since the last full chunk (more may be added after). */
  flush(): void {
    if (this.#pending.length > 0) this.#pack();
  }

  /** Every observation in the order added, chunk by chunk (one chunk unpacked at a time). */
  *[Symbol.iterator](): IterableIterator<T> {
    for (const chunk of this.#chunks) yield* unframe(inflateRawSync(chunk));
    for (const bytes of this.#pending) yield deserialize(bytes) as T;
  }

  /** Every observation in the order added, as a new array of new objects. */
  toArray(): T[] {
    return [...this];
  }

  #pack(): void {
    this.#chunks.push(deflateRawSync(frame(this.#pending)));
    this.#pending = [];
  }
}

/** Serialised values one after another, each after its length (4 bytes, big-endian). */
function frame(parts: readonly Buffer[]): Buffer {
  const out = Buffer.allocUnsafe(parts.reduce((size, part) => size + 4 + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.writeUInt32BE(part.length, at);
    part.copy(out, at + 4);
    at += 4 + part.length;
  }
  return out;
}

/** The values of {@link frame}, deserialised in order. */
function* unframe<T>(bytes: Buffer): IterableIterator<T> {
  for (let at = 0; at < bytes.length; ) {
    const size = bytes.readUInt32BE(at);
    yield deserialize(bytes.subarray(at + 4, at + 4 + size)) as T;
    at += 4 + size;
  }
}
