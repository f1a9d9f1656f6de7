import { closeSync, openSync, readSync } from 'node:fs';
import type { RunFolder } from '@chi/run';
import { fileLines, RUN_FILE_NAME } from '@chi/run/internal';
import { parseWith, type RequestIndexEntry } from '@chi/spec';
import { RequestIndexEntrySchema } from '@chi/spec/internal';

const REQUEST_INDEX_FILE = RUN_FILE_NAME.requestIndex;
const SHA256_BYTES = 32;

/**
 * The request index of a layout-0.2 run folder (`requests.jsonl`) as the report keeps it: per
 * request ID, where its last line is and its `requestSha256` as 32 bytes (about 60 bytes a request
 * with the ID, where `@chi/run`'s index keeps each line parsed, about 500). A line is parsed from
 * the file again when a request is read. The file was checked by `@chi/run`'s reader first; this
 * only locates its lines, with the same rule (the last line per request ID; bytes after the last
 * newline are a torn append and ignored).
 */
export class RequestIndexOnDisk {
  readonly #path: string;
  readonly #slots = new Map<string, number>();
  #starts = new Float64Array(1024);
  #ends = new Float64Array(1024);
  #hashes = new Uint8Array(1024 * SHA256_BYTES);

  private constructor(path: string) {
    this.#path = path;
  }

  /** Locates every line of `path` (a `requests.jsonl` already checked). */
  static async read(path: string): Promise<RequestIndexOnDisk> {
    const index = new RequestIndexOnDisk(path);
    for await (const line of fileLines(path)) {
      if (!line.terminated) break;
      if (line.text.trim() === '') continue;
      const entry = JSON.parse(line.text) as { requestId: string; requestSha256: string };
      index.#set(entry.requestId, line.start, line.end, entry.requestSha256);
    }
    return index;
  }

  #set(requestId: string, start: number, end: number, sha256: string): void {
    let slot = this.#slots.get(requestId);
    if (slot === undefined) {
      slot = this.#slots.size;
      this.#slots.set(requestId, slot);
      if (slot === this.#starts.length) this.#grow();
    }
    this.#starts[slot] = start;
    this.#ends[slot] = end;
    this.#hashes.set(Buffer.from(sha256, 'hex'), slot * SHA256_BYTES);
  }

  #grow(): void {
    const starts = new Float64Array(this.#starts.length * 2);
    starts.set(this.#starts);
    this.#starts = starts;
    const ends = new Float64Array(this.#ends.length * 2);
    ends.set(this.#ends);
    this.#ends = ends;
    const hashes = new Uint8Array(this.#hashes.length * 2);
    hashes.set(this.#hashes);
    this.#hashes = hashes;
  }

  /** The request IDs, in the order of their first line. */
  get ids(): ReadonlyMap<string, number> {
    return this.#slots;
  }

  /** The `requestSha256` of a request's last line, or undefined. */
  sha256(requestId: string): string | undefined {
    const slot = this.#slots.get(requestId);
    if (slot === undefined) return undefined;
    return Buffer.from(
      this.#hashes.subarray(slot * SHA256_BYTES, (slot + 1) * SHA256_BYTES),
    ).toString('hex');
  }

  /** A request's index entry, parsed from its line now, or undefined. */
  entry(requestId: string): RequestIndexEntry | undefined {
    const slot = this.#slots.get(requestId);
    if (slot === undefined) return undefined;
    const start = this.#starts[slot] as number;
    const bytes = Buffer.allocUnsafe((this.#ends[slot] as number) - start);
    const fd = openSync(this.#path, 'r');
    try {
      readSync(fd, bytes, 0, bytes.length, start);
    } finally {
      closeSync(fd);
    }
    return parseWith(
      RequestIndexEntrySchema,
      JSON.parse(bytes.toString('utf8')),
      `${REQUEST_INDEX_FILE}:${start}`,
    );
  }
}

/**
 * One rendered request read through the lean index: its line parsed again and its payload read
 * (and checked against its hash) by `@chi/run`'s run folder, shaped as `RunFolder.readRequestSync`
 * shapes it.
 */
export function readRequestOnDisk(
  index: RequestIndexOnDisk,
  folder: RunFolder,
  requestId: string,
): ReturnType<RunFolder['readRequestSync']> {
  const entry = index.entry(requestId);
  if (entry === undefined) return null;
  const { kind: _kind, ...rest } = entry;
  return {
    kind: 'rendered-request',
    ...rest,
    messages: folder.readPayloadSync(entry.requestSha256),
  };
}
