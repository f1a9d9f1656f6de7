import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, rename, stat, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { promisify } from 'node:util';
import { gunzipSync, gzip, gzipSync } from 'node:zlib';
import {
  type ChatMessage,
  ChatMessageSchema,
  type RenderedRequest,
  type RequestIndexEntry,
  RunFolderDamagedError,
  ValidationError,
} from '@chi/spec';
import { RenderedRequestSchema, RequestIndexEntrySchema } from '@chi/spec/internal';
import { z } from 'zod';
import { canonicalJson, sha256Hex } from './canonical-json';
import { legacyRequestPath, payloadPath, type RunPaths, runFolderPaths } from './run-files';
import { parseRunJsonl } from './run-jsonl';

/**
 * How a run folder stores its rendered requests:
 * - `0.2`: `requests.jsonl` (one index line per rendered request) and content-addressed
 *   `payloads/<sha256>.json.gz` (each distinct prompt once);
 * - `0.1`: one `requests/<requestId>.json` per request with its messages inline.
 */
export type RequestLayout = '0.1' | '0.2';

/**
 * The gzip level of every `*.json.gz` run file: fixed, so the same content always gives the same
 * bytes; zlib's default, because level 9 took 15 times longer on a 3 MB prompt for 5% fewer bytes.
 */
export const RUN_FILE_GZIP_LEVEL = 6;

/** A payload ready to store: its address and its gzip bytes. */
export interface EncodedPayload {
  /** SHA-256 of the canonical JSON of the messages (= the request's `requestSha256`). */
  readonly sha256: string;
  /** Standard gzip (no file name, modification time 0, OS byte 3) of the canonical JSON. */
  readonly gzip: Uint8Array;
}

/**
 * Encodes a request's messages as a payload: RFC 8785 canonical JSON, addressed by its SHA-256,
 * gzip-compressed deterministically (`zcat payloads/<sha256>.json.gz | sha256sum` prints the
 * address).
 */
export function encodePayload(messages: readonly ChatMessage[]): EncodedPayload {
  const text = canonicalJson(messages);
  return { sha256: sha256Hex(text), gzip: gzipText(text) };
}

/**
 * Deterministic standard gzip of a text: fixed level ({@link RUN_FILE_GZIP_LEVEL}), no file name,
 * modification time 0, OS byte 3 (Unix) whatever the platform.
 */
export function gzipText(text: string): Uint8Array {
  const gzip = gzipSync(Buffer.from(text, 'utf8'), { level: RUN_FILE_GZIP_LEVEL });
  gzip[9] = 3;
  return new Uint8Array(gzip);
}

const gzipAsync = promisify(gzip);

/**
 * {@link gzipText} on libuv's thread pool: the same bytes (same level, same single input, OS byte
 * 3), compressed off the main thread so that the runner's own work goes on beside it.
 */
export async function gzipTextAsync(text: string): Promise<Uint8Array> {
  const gzip = await gzipAsync(Buffer.from(text, 'utf8'), { level: RUN_FILE_GZIP_LEVEL });
  gzip[9] = 3;
  return new Uint8Array(gzip);
}

/** A request's messages in canonical form: the text a payload stores and its address. */
export interface CanonicalPayload {
  /** RFC 8785 canonical JSON of the messages. */
  readonly text: string;
  /** SHA-256 of `text` (= the request's `requestSha256` and the payload's file name). */
  readonly sha256: string;
}

/** Serializes and hashes a request's messages once, for both its `requestSha256` and its payload. */
export function canonicalPayload(messages: readonly ChatMessage[]): CanonicalPayload {
  const text = canonicalJson(messages);
  return { text, sha256: sha256Hex(text) };
}

/** The gzip bytes of a value's RFC 8785 canonical JSON (the form of `*.json.gz` run files). */
export function encodeGzipJson(value: unknown): Uint8Array {
  return gzipText(canonicalJson(value));
}

/** The UTF-8 text of a gzip run file; `RunFolderDamagedError` naming `source` when not gzip. */
function gunzipRunFile(bytes: Uint8Array, source: string): string {
  try {
    return gunzipSync(bytes).toString('utf8');
  } catch (error) {
    throw new RunFolderDamagedError(source, `not gzip (${(error as Error).message})`, {
      cause: error,
    });
  }
}

/**
 * Decompresses and parses a `*.json.gz` run file.
 *
 * @throws `RunFolderDamagedError` naming `source` when it is not gzip or not JSON
 */
export function decodeGzipJson(bytes: Uint8Array, source: string): unknown {
  const text = gunzipRunFile(bytes, source);
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new RunFolderDamagedError(source, `not JSON (${(error as Error).message})`, {
      cause: error,
    });
  }
}

const MessagesSchema = z.array(ChatMessageSchema);

/**
 * Decodes payload bytes and checks them against their address.
 *
 * @param source - the file, named in errors
 * @throws `RunFolderDamagedError` when the bytes are not gzip, hash to another address, or are
 * not a message list
 */
export function decodePayload(bytes: Uint8Array, sha256: string, source: string): ChatMessage[] {
  const text = gunzipRunFile(bytes, source);
  const actual = sha256Hex(text);
  if (actual !== sha256)
    throw new RunFolderDamagedError(
      source,
      `its content hashes to ${actual}, not to its name ${sha256}: the payload was altered`,
    );
  const parsed = MessagesSchema.safeParse(JSON.parse(text));
  if (!parsed.success)
    throw new RunFolderDamagedError(source, `not a message list: ${parsed.error.message}`);
  return parsed.data;
}

/** How many decoded payloads a run folder keeps (see `readPayloadSync` in {@link openRunFolder}). */
const DECODED_PAYLOADS_KEPT = 4;

/** How many payload names a run folder remembers writing (see `writeCanonicalPayload`). */
const RECENT_PAYLOADS = 16;

/** Freezes a decoded message list: it is shared by every reader of the payload, so none may edit it. */
function freezeMessages(messages: ChatMessage[]): ChatMessage[] {
  for (const message of messages) Object.freeze(message);
  return Object.freeze(messages) as ChatMessage[];
}

async function writeAtomic(path: string, bytes: Uint8Array | string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const temporary = `${path}.${randomBytes(4).toString('hex')}.tmp`;
  await writeFile(temporary, bytes);
  await rename(temporary, path);
}

async function isFile(path: string): Promise<boolean> {
  return stat(path).then(
    (s) => s.isFile(),
    () => false,
  );
}

/** The request index entry of a rendered request (its messages go to `payloads/`). */
export function requestIndexEntry(request: RenderedRequest): RequestIndexEntry {
  const { messages: _messages, kind: _kind, ...rest } = request;
  return { kind: 'request-index', ...rest };
}

/** A run folder opened for reading and writing its files through one set of rules. */
export interface RunFolder {
  /** Every path of the folder. */
  readonly paths: RunPaths;
  /** How the folder stores rendered requests (see {@link RequestLayout}). */
  readonly requestLayout: RequestLayout;
  /**
   * Stores a payload if it is not stored yet (layout 0.2) and returns its address. Writing is
   * atomic (temporary sibling, rename), so concurrent writers of the same content agree.
   */
  writePayload(messages: readonly ChatMessage[]): Promise<string>;
  /**
   * {@link RunFolder.writePayload} of messages already serialized by `canonicalPayload`
   * (the runner hashes them for `requestSha256` anyway): nothing is serialized or hashed again.
   */
  writeCanonicalPayload(payload: CanonicalPayload): Promise<string>;
  /**
   * Reads and checks one payload.
   *
   * @throws `RunFolderDamagedError` naming `payloads/<sha256>.json.gz` when it is missing or altered
   */
  readPayload(sha256: string): Promise<ChatMessage[]>;
  /**
   * The request index (layout 0.2: the last line per request ID of `requests.jsonl`; layout 0.1:
   * built from `requests/*.json`), keyed by request ID.
   */
  readRequestIndex(): Promise<ReadonlyMap<string, RequestIndexEntry>>;
  /**
   * One rendered request exactly as sent (messages included), or null when it was never rendered.
   * The one read of a request's content every reader (scoring, release, verify) goes through.
   *
   * @throws `RunFolderDamagedError` naming the file when its payload or request file is damaged
   */
  readRequest(requestId: string): Promise<RenderedRequest | null>;
  /** Every rendered request, in request-ID order (UTF-16 code units), one at a time. */
  readRequests(): AsyncGenerator<RenderedRequest>;
  /** {@link RunFolder.readRequestIndex}, synchronously (for lazy per-key readers). */
  readRequestIndexSync(): ReadonlyMap<string, RequestIndexEntry>;
  /** {@link RunFolder.readRequest}, synchronously (for lazy per-key readers). */
  readRequestSync(requestId: string): RenderedRequest | null;
  /** {@link RunFolder.readPayload}, synchronously. */
  readPayloadSync(sha256: string): ChatMessage[];
  /**
   * The relative file a request's messages are read from: `payloads/<sha256>.json.gz` (0.2) or
   * `requests/<id>.json` (0.1); undefined when the request was never rendered.
   */
  requestFile(requestId: string): string | undefined;
}

/**
 * The layout of a folder: 0.1 when it holds `requests/` and no `requests.jsonl`, 0.2 otherwise
 * (a new folder is created in layout 0.2).
 */
export function detectRequestLayout(paths: RunPaths): RequestLayout {
  if (existsSync(paths.requestIndex)) return '0.2';
  return existsSync(paths.legacyRequestsDir) ? '0.1' : '0.2';
}

function damaged(path: string, error: unknown): never {
  if (ValidationError.isInstance(error) || error instanceof SyntaxError)
    throw new RunFolderDamagedError(path, error.message.replace(/\n\s*/g, ' '), { cause: error });
  throw error;
}

function readLegacyRequest(path: string): RenderedRequest | null {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    damaged(path, error);
  }
  const parsed = RenderedRequestSchema.safeParse(value);
  if (!parsed.success)
    throw new RunFolderDamagedError(path, parsed.error.message.replace(/\n\s*/g, ' '));
  return parsed.data;
}

function legacyRequestIds(paths: RunPaths): string[] {
  let names: string[];
  try {
    names = readdirSync(paths.legacyRequestsDir);
  } catch {
    return [];
  }
  return names
    .filter((name) => name.endsWith('.json'))
    .map((name) => name.slice(0, -'.json'.length))
    .sort();
}

/**
 * Opens the run folder (or the raw part of a release, which has the same layout) at `root`.
 * Nothing is read until a method is called; the request index is read once and kept (a few
 * hundred bytes per request, never the messages).
 */
export function openRunFolder(root: string): RunFolder {
  const paths = runFolderPaths(root);
  const requestLayout = detectRequestLayout(paths);
  let index: ReadonlyMap<string, RequestIndexEntry> | null = null;

  // The last few payloads decoded: the systems of a block share a prompt, and one request is read
  // by scoring, the derived files and the release in turn, so the same payload was gunzipped,
  // hashed and parsed up to a dozen times. A few entries keep memory flat in the number of worlds.
  const decoded = new Map<string, ChatMessage[]>();
  const readPayloadSync = (sha256: string): ChatMessage[] => {
    const hit = decoded.get(sha256);
    if (hit !== undefined) {
      decoded.delete(sha256);
      decoded.set(sha256, hit);
      return hit;
    }
    const messages = freezeMessages(decodePayloadFile(sha256));
    decoded.set(sha256, messages);
    if (decoded.size > DECODED_PAYLOADS_KEPT) decoded.delete(decoded.keys().next().value as string);
    return messages;
  };

  const decodePayloadFile = (sha256: string): ChatMessage[] => {
    const path = paths.payload(sha256);
    let bytes: Uint8Array;
    try {
      bytes = readFileSync(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      throw new RunFolderDamagedError(
        path,
        'missing, but requests.jsonl names it: what was asked is lost',
      );
    }
    return decodePayload(bytes, sha256, path);
  };

  const loadIndex = (): ReadonlyMap<string, RequestIndexEntry> => {
    const out = new Map<string, RequestIndexEntry>();
    if (requestLayout === '0.1') {
      for (const id of legacyRequestIds(paths)) {
        const request = readLegacyRequest(paths.legacyRequest(id));
        if (request !== null) out.set(request.requestId, requestIndexEntry(request));
      }
      return out;
    }
    let text: Uint8Array;
    try {
      text = readFileSync(paths.requestIndex);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return out;
      throw error;
    }
    let records: RequestIndexEntry[] = [];
    try {
      records = parseRunJsonl(text, RequestIndexEntrySchema, paths.requestIndex).records;
    } catch (error) {
      damaged(paths.requestIndex, error);
    }
    for (const entry of records) out.set(entry.requestId, entry);
    return out;
  };

  const readRequestIndexSync = () => {
    index ??= loadIndex();
    return index;
  };

  const readRequestSync = (requestId: string): RenderedRequest | null => {
    if (requestLayout === '0.1') return readLegacyRequest(paths.legacyRequest(requestId));
    const entry = readRequestIndexSync().get(requestId);
    if (entry === undefined) return null;
    const { kind: _kind, ...rest } = entry;
    return { kind: 'rendered-request', ...rest, messages: readPayloadSync(entry.requestSha256) };
  };

  // The payloads this folder object wrote last: the systems of a block, sent the same prompt in a
  // row, store it once without asking the file system again (a few names: memory stays flat).
  const recentPayloads: string[] = [];
  const writeCanonicalPayload = async ({ text, sha256 }: CanonicalPayload): Promise<string> => {
    if (recentPayloads.includes(sha256)) return sha256;
    // hashed first: a prompt already stored (another system's identical prompt) is not compressed again
    const path = paths.payload(sha256);
    if (!(await isFile(path))) await writeAtomic(path, await gzipTextAsync(text));
    recentPayloads.push(sha256);
    if (recentPayloads.length > RECENT_PAYLOADS) recentPayloads.shift();
    return sha256;
  };

  return {
    paths,
    requestLayout,
    writePayload(messages) {
      return writeCanonicalPayload(canonicalPayload(messages));
    },
    writeCanonicalPayload,
    readPayload: async (sha256) => readPayloadSync(sha256),
    readPayloadSync,
    readRequestIndex: async () => readRequestIndexSync(),
    readRequestIndexSync,
    readRequest: async (requestId) => readRequestSync(requestId),
    readRequestSync,
    async *readRequests() {
      const ids = [...readRequestIndexSync().keys()].sort();
      for (const id of ids) {
        const request = readRequestSync(id);
        if (request !== null) yield request;
      }
    },
    requestFile(requestId) {
      const entry = readRequestIndexSync().get(requestId);
      if (entry === undefined) return undefined;
      return requestFileOf(requestLayout, requestId, entry.requestSha256);
    },
  };
}

/** The relative file a request's content is read from, for messages naming it. */
export function requestFileOf(
  layout: RequestLayout,
  requestId: string,
  requestSha256: string | null,
): string {
  if (layout === '0.1') return legacyRequestPath(requestId);
  return requestSha256 === null ? 'requests.jsonl' : payloadPath(requestSha256);
}
