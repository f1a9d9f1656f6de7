import { readFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { compareUtf8 } from '@chi/analysis/internal';
import { memoryFileKey } from '@chi/experiments/internal';
import {
  checkRunIntegrity,
  openRunFolder,
  parseRunJsonl,
  type RequestLayout,
  type RunFolder,
  type RunPaths,
} from '@chi/run';
import {
  decodeGzipJson,
  RUN_FILE_NAME,
  RUN_FOLDER_DIRECTORY,
  readAttemptRecordsLean,
  requestFileOf,
  runFile,
  runFolderPaths,
} from '@chi/run/internal';
import {
  type AttemptRecord,
  type BehavioralItemSet,
  BehavioralItemSetSchema,
  type BlockStatus,
  type ChisEntry,
  ChisEntrySchema,
  type HistoryWorld,
  HistoryWorldSchema,
  type HumanCalibration,
  InvalidArgumentError,
  type LedgerEntry,
  type MemoryWorld,
  MemoryWorldSchema,
  type ModelCatalog,
  parseWith,
  type RenderedRequest,
  RunFolderDamagedError,
  type RunManifest,
  RunManifestSchema,
  type RunPlan,
  type RunStatus,
  type SmokeResult,
  ValidationError,
} from '@chi/spec';
import {
  BlockStatusSchema,
  type FailureLogEntry,
  FailureLogEntrySchema,
  LedgerEntrySchema,
  ModelCatalogSchema,
  type NotebookSnapshot,
  NotebookSnapshotSchema,
  RunStatusSchema,
  SmokeResultSchema,
} from '@chi/spec/internal';
import { z } from 'zod';
import { canonicalJson, sha256Hex } from '../canonical-json';
import { readPlanView } from './plan-view';
import { RequestIndexOnDisk, readRequestOnDisk } from './request-index-on-disk';
import { readRunCalibration } from './run-calibration';
import { integrityProblemsWith, throwIfDamaged } from './run-integrity';

/** A file's path relative to the folder root and its parsed content. */
export interface Located<T> {
  readonly path: string;
  readonly value: T;
}

/** The run-folder paths of a run's worlds ({@link RunRecords.worldPaths}). */
export type WorldPaths = Pick<RunPaths, 'memoryWorld' | 'historyWorld' | 'behaviorWorld'>;

/** The current layout's relative world paths. */
export const WORLD_PATHS: WorldPaths = runFolderPaths('');

/**
 * Everything a run folder (or the raw part of a release, which has the same layout) holds, parsed
 * and validated. Maps are keyed as documented per field; lists keep file order.
 */

export interface RunRecords {
  readonly manifest: RunManifest;
  /** SHA-256 of the RFC 8785 canonical JSON of the manifest (what attempt records carry). */
  readonly manifestSha256: string;
  /**
   * `plan.json`, checked whole when the folder is read: `requests` and `blocks` are read-only
   * arrays over an index of the file's bytes, each element parsed when reached (a new, equal
   * object at each access; see `readPlanView`). Look requests up by ID with `requestOrdinalOf`,
   * not with a map of the parsed requests.
   */
  readonly plan: RunPlan;
  /** Prompt templates by file name, e.g. `memory-probe@1.txt`, with their exact text. */
  readonly prompts: readonly Located<string>[];
  /** Memory worlds keyed `w<seed>-n<load>`, read from disk when asked for (see {@link RunFiles}). */
  readonly memoryWorlds: RunFiles<string, MemoryWorld>;
  /** History worlds by seed, read from disk when asked for (the last one read is kept). */
  readonly historyWorlds: ReadonlyMap<number, HistoryWorld>;
  /** Behavioral item sets by seed, read from disk when asked for (the last one read is kept). */
  readonly behaviorItems: ReadonlyMap<number, BehavioralItemSet>;
  /**
   * The run-folder paths of the worlds in the current layout (`@chi/run`'s), relative to the
   * folder: what a scorer names when a world it needs is missing.
   */
  readonly worldPaths: WorldPaths;
  /** Rendered requests keyed by request ID, read from disk when asked for (see {@link RunFiles}). */
  readonly requests: RunFiles<string, RenderedRequest>;
  /** The `requestSha256` each rendered request file records, by request ID (read once, kept). */
  readonly requestHashes: ReadonlyMap<string, string>;
  /**
   * How the folder stores rendered requests (`@chi/run`'s `RequestLayout`): `0.2` content-addressed
   * payloads plus `requests.jsonl` (the default when absent), `0.1` one `requests/<id>.json` each.
   */
  readonly requestLayout?: RequestLayout;
  /**
   * Every line of the attempt log, in order: a read-only array that holds where each line is and
   * parses a record from the file when it is reached (each access gives a new, equal object).
   */
  readonly attempts: readonly AttemptRecord[];
  /** Notebook snapshots keyed by their path under `notebooks/`, read when asked for. */
  readonly notebooks: RunFiles<string, NotebookSnapshot>;
  /** The path of the notebook each note-writing request produced, by request ID. */
  readonly notebookOfRequest: ReadonlyMap<string, string>;
  readonly failures: readonly FailureLogEntry[];
  readonly smoke: readonly SmokeResult[];
  readonly ledger: readonly LedgerEntry[];
  /**
   * CHIS logs keyed by system ID, each checked when the folder is read and read from disk again
   * when asked for (see {@link RunFiles}).
   */
  readonly chis: RunFiles<string, readonly ChisEntry[]>;
  /** `blocks.json`, or null when the run was never scored. */
  readonly blocks: readonly BlockStatus[] | null;
  /** `status.json`, or null when absent. */
  readonly status: RunStatus | null;
  /**
   * The model catalog fetched before freezing (`catalog.json`, live OpenRouter runs only): the
   * endpoints' quantization the report states. Null or absent without one.
   */
  readonly catalog?: ModelCatalog | null;
  /** The frozen human calibration (`calibration.json`); null or absent without one. */
  readonly calibration?: HumanCalibration | null;
}

async function readText(dir: string, path: string): Promise<string> {
  return (await readBytes(dir, path)).toString('utf8');
}

async function readBytes(dir: string, path: string): Promise<Buffer> {
  try {
    return await readFile(join(dir, path));
  } catch (error) {
    throw new InvalidArgumentError(
      path,
      `cannot read ${join(dir, path)}: ${(error as Error).message}`,
      { cause: error },
    );
  }
}

async function readOptionalText(dir: string, path: string): Promise<string | null> {
  try {
    return await readFile(join(dir, path), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

function parseJson(text: string, path: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new InvalidArgumentError(path, `expected JSON: ${(error as Error).message}`, {
      cause: error,
    });
  }
}

async function readJson<S extends z.ZodType>(
  dir: string,
  path: string,
  schema: S,
): Promise<z.output<S>> {
  if (path.endsWith('.gz'))
    return parseWith(schema, decodeGzipJson(await readFile(join(dir, path)), path), path);
  return parseWith(schema, parseJson(await readText(dir, path), path), path);
}

/**
 * Reads and validates one JSON file (or gzip of JSON, `.json.gz`) of a run folder synchronously.
 * After {@link readRunFolder} has checked a folder, every read of a world or a notebook goes
 * through here (rendered requests through `@chi/run`'s `openRunFolder`), one file at a time, so a
 * run's large files never sit in memory all at once.
 *
 * @throws InvalidArgumentError or ValidationError naming the file
 */
export function readRunJsonFileSync<S extends z.ZodType>(
  dir: string,
  path: string,
  schema: S,
): z.output<S> {
  let bytes: Buffer;
  try {
    bytes = readFileSync(join(dir, path));
  } catch (error) {
    throw new InvalidArgumentError(
      path,
      `cannot read ${join(dir, path)}: ${(error as Error).message}`,
      { cause: error },
    );
  }
  if (path.endsWith('.gz')) return parseWith(schema, decodeGzipJson(bytes, path), path);
  return parseWith(schema, parseJson(bytes.toString('utf8'), path), path);
}

/**
 * Files of a run folder by key, each read (and validated) from disk when asked for. It keeps the
 * last file read and no other, so memory grows with the largest single file, not with the run:
 * asking for the same key twice in a row reads it once. Iteration reads every file in key order.
 */
export interface RunFiles<K, V> {
  readonly size: number;
  has(key: K): boolean;
  /** The file's content, or undefined when the folder has no such file. */
  get(key: K): V | undefined;
  /** The file's path relative to the folder, or undefined. */
  pathOf(key: K): string | undefined;
  keys(): IterableIterator<K>;
  [Symbol.iterator](): IterableIterator<[K, V]>;
}

/** {@link RunFiles} over `paths`, each value made by `read(path, key)` when asked for. */
export function runFilesOf<K, V>(
  paths: ReadonlyMap<K, string>,
  read: (path: string, key: K) => V,
): RunFiles<K, V> {
  return new LazyRunFiles(paths, read);
}

/** Called with the path of every file a {@link RunFiles} reads from disk (tests count them). */
export type RunFileReadHook = (path: string) => void;

class LazyRunFiles<K, V> implements RunFiles<K, V> {
  readonly #paths: ReadonlyMap<K, string>;
  readonly #read: (path: string, key: K) => V;
  #last: { readonly key: K; readonly value: V } | null = null;

  constructor(paths: ReadonlyMap<K, string>, read: (path: string, key: K) => V) {
    this.#paths = paths;
    this.#read = read;
  }

  get size(): number {
    return this.#paths.size;
  }

  has(key: K): boolean {
    return this.#paths.has(key);
  }

  pathOf(key: K): string | undefined {
    return this.#paths.get(key);
  }

  get(key: K): V | undefined {
    if (this.#last !== null && this.#last.key === key) return this.#last.value;
    const path = this.#paths.get(key);
    if (path === undefined) return undefined;
    const value = this.#read(path, key);
    this.#last = { key, value };
    return value;
  }

  keys(): IterableIterator<K> {
    return this.#paths.keys();
  }

  *[Symbol.iterator](): IterableIterator<[K, V]> {
    for (const key of this.#paths.keys()) yield [key, this.get(key) as V];
  }
}

/** Options of {@link readRunFolder}. */
export interface ReadRunFolderOptions {
  /**
   * Told the path of every world, request or notebook read from disk after the folder is checked,
   * and of every element of the plan parsed (`plan.json:request:<i>`, `plan.json:block:<i>`).
   */
  readonly onFileRead?: RunFileReadHook;
  /**
   * The folder is a release (its raw part): it has no `attempts.head.json`, which stays private
   * to the run folder; its anchor is the release hash published elsewhere. Default false.
   */
  readonly release?: boolean;
}

/**
 * Files of a run folder by key, each read and validated with `schema` when asked for (the last one
 * read kept): the {@link RunFiles} of {@link readRunFolder}, for readers that build their own
 * subset of a folder (the viewer reads one world at a time).
 */
export function lazyFiles<K, S extends z.ZodType>(
  dir: string,
  paths: ReadonlyMap<K, string>,
  schema: S,
  onFileRead: RunFileReadHook | undefined,
): RunFiles<K, z.output<S>> {
  return new LazyRunFiles(paths, (path) => {
    onFileRead?.(path);
    return readRunJsonFileSync(dir, path, schema);
  });
}

/**
 * The files of {@link lazyFiles} as a read-only map: each read (and validated) from disk when
 * asked for, the last one read kept and no other. Held as parsed objects for the whole analysis,
 * the history worlds and behavioral item sets cost about 0.05 MB a world of the v0.1 run.
 */
function lazyMap<K, S extends z.ZodType>(
  dir: string,
  paths: ReadonlyMap<K, string>,
  schema: S,
  onFileRead: RunFileReadHook | undefined,
): ReadonlyMap<K, z.output<S>> {
  const files = lazyFiles(dir, paths, schema, onFileRead);
  return new MapView(paths, (_path: string, key: K) => files.get(key) as z.output<S>);
}

/**
 * A read-only map whose values are computed from another map's when asked for: the run's indexes
 * by request ID (hashes, file paths) are views of the one request index `@chi/run` keeps, not
 * copies of it (a copy costs about 0.1 MB a world of the v0.1 run).
 */
class MapView<K, A, B> implements ReadonlyMap<K, B> {
  readonly #source: ReadonlyMap<K, A>;
  readonly #value: (value: A, key: K) => B;

  constructor(source: ReadonlyMap<K, A>, value: (value: A, key: K) => B) {
    this.#source = source;
    this.#value = value;
  }

  get size(): number {
    return this.#source.size;
  }

  has(key: K): boolean {
    return this.#source.has(key);
  }

  get(key: K): B | undefined {
    const value = this.#source.get(key);
    return value === undefined ? undefined : this.#value(value, key);
  }

  keys(): MapIterator<K> {
    return this.#source.keys();
  }

  *values(): MapIterator<B> {
    for (const [key, value] of this.#source) yield this.#value(value, key);
  }

  *entries(): MapIterator<[K, B]> {
    for (const [key, value] of this.#source) yield [key, this.#value(value, key)];
  }

  [Symbol.iterator](): MapIterator<[K, B]> {
    return this.entries();
  }

  forEach(callback: (value: B, key: K, map: ReadonlyMap<K, B>) => void, thisArg?: unknown): void {
    for (const [key, value] of this.entries()) callback.call(thisArg, value, key, this);
  }
}

/** The rendered requests of a run folder and the hash each records, by request ID. */
interface RequestReading {
  readonly requests: RunFiles<string, RenderedRequest>;
  readonly requestHashes: ReadonlyMap<string, string>;
}

/**
 * Checks the request index (or the 0.1 request files) with `@chi/run`'s reader and every distinct
 * payload against its hash, through a folder of its own: what it parsed is dropped on return.
 */
function checkRequests(dir: string): void {
  const folder = openRunFolder(dir);
  const checkedPayloads = new Set<string>();
  for (const entry of folder.readRequestIndexSync().values()) {
    if (checkedPayloads.has(entry.requestSha256)) continue;
    checkedPayloads.add(entry.requestSha256);
    if (folder.requestLayout === '0.2') folder.readPayloadSync(entry.requestSha256);
  }
}

/**
 * Rendered requests by ID, each read when asked for (`read`: its payload decoded and checked
 * against its hash); the path is the file that holds its messages.
 */
function lazyRequests(
  requestIds: ReadonlyMap<string, unknown>,
  pathOf: (requestId: string) => string,
  read: (requestId: string) => RenderedRequest | null,
  onFileRead: RunFileReadHook | undefined,
): RunFiles<string, RenderedRequest> {
  const paths = new MapView(requestIds, (_value, requestId) => pathOf(requestId));
  // several requests can share one content-addressed payload: a request is read by its ID
  return new LazyRunFiles(paths, (path, requestId) => {
    onFileRead?.(path);
    const request = read(requestId);
    if (request === null)
      throw new RunFolderDamagedError(path, `the rendered request ${requestId} is missing`);
    return request;
  });
}

/**
 * Layout 0.2: the requests through the lean index of `requests.jsonl` ({@link RequestIndexOnDisk}:
 * where each line is and its hash as bytes), not `@chi/run`'s index of parsed lines, which grows
 * about 0.1 MB a world of the v0.1 run.
 */
async function leanRequests(
  folder: RunFolder,
  onFileRead: RunFileReadHook | undefined,
): Promise<RequestReading> {
  const index = await RequestIndexOnDisk.read(folder.paths.requestIndex);
  const sha256 = (requestId: string) => index.sha256(requestId) as string;
  return {
    requests: lazyRequests(
      index.ids,
      (requestId) => requestFileOf('0.2', requestId, sha256(requestId)),
      (requestId) => readRequestOnDisk(index, folder, requestId),
      onFileRead,
    ),
    requestHashes: new MapView(index.ids, (_slot, requestId) => sha256(requestId)),
  };
}

/** Layout 0.1: the requests through `@chi/run`'s index of the request files. */
function legacyRequests(
  folder: RunFolder,
  onFileRead: RunFileReadHook | undefined,
): RequestReading {
  const index = folder.readRequestIndexSync();
  return {
    requests: lazyRequests(
      index,
      (requestId) => folder.requestFile(requestId) ?? requestId,
      (requestId) => folder.readRequestSync(requestId),
      onFileRead,
    ),
    requestHashes: new MapView(index, (entry) => entry.requestSha256),
  };
}

/**
 * Parses JSONL text with the run folder's one rule (`parseRunJsonl` of `@chi/run`): every
 * newline-terminated line is a record; bytes after the last newline are a torn write and are
 * dropped even when they parse (the runner's writer truncates them before its next append); a bad
 * line anywhere else is an error naming the file and line.
 */
export function parseJsonLines<S extends z.ZodType>(
  text: string,
  path: string,
  schema: S,
): z.output<S>[] {
  return parseRunJsonl(text, schema, path).records;
}

async function readJsonLines<S extends z.ZodType>(
  dir: string,
  path: string,
  schema: S,
): Promise<z.output<S>[]> {
  const text = await readOptionalText(dir, path);
  return text === null ? [] : parseJsonLines(text, path, schema);
}

/** Relative paths of the files under `dir/sub` (recursive, sorted by UTF-8 bytes), or none. */
async function listFiles(dir: string, sub: string): Promise<string[]> {
  const out: string[] = [];
  async function walk(relative: string): Promise<void> {
    let entries: import('node:fs').Dirent[];
    try {
      entries = await readdir(join(dir, relative), { withFileTypes: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw error;
    }
    for (const entry of entries) {
      const path = `${relative}/${entry.name}`;
      if (entry.isDirectory()) await walk(path);
      else if (entry.isFile() && !entry.name.endsWith('.tmp')) out.push(path);
    }
  }
  await walk(sub);
  return out.sort(compareUtf8);
}

const MEMORY_WORLD_FILE = runFile('memoryWorld').matcher;
const HISTORY_WORLD_FILE = runFile('historyWorld').matcher;
const BEHAVIOR_WORLD_FILE = runFile('behaviorWorld').matcher;

/**
 * Reads and validates a run folder (layout: `packages/pilot/RUN-FOLDER.md`). A release holds the
 * same raw files, so this reads a release's raw part too.
 *
 * @throws InvalidArgumentError or ValidationError naming the file (and line) that is unreadable
 * or does not match its schema; RunFolderDamagedError when the folder contradicts itself (see
 * {@link integrityProblems}: a broken attempt hash chain, a missing `requests/*.json`...).
 */
export async function readRunFolder(
  dir: string,
  options: ReadRunFolderOptions = {},
): Promise<RunRecords> {
  try {
    return await readRunFolderFiles(dir, options);
  } catch (error) {
    // A file of the folder that does not parse or validate: the folder is damaged (exit 5 in chi).
    if (ValidationError.isInstance(error) || InvalidArgumentError.isInstance(error))
      throw new RunFolderDamagedError(dir, error.message.replace(/\n\s*/g, ' '), { cause: error });
    throw error;
  }
}

async function readRunFolderFiles(dir: string, options: ReadRunFolderOptions): Promise<RunRecords> {
  const onFileRead = options.onFileRead;
  const manifest = await readJson(dir, RUN_FILE_NAME.manifest, RunManifestSchema);
  // checked whole here; held as an index, each request read back from the file when reached
  const plan = readPlanView(
    await readBytes(dir, RUN_FILE_NAME.plan),
    join(dir, RUN_FILE_NAME.plan),
    onFileRead,
  );

  const prompts: Located<string>[] = [];
  for (const path of await listFiles(dir, 'prompts'))
    prompts.push({ path, value: await readText(dir, path) });

  // Large files (worlds, requests, notebooks) are validated here one at a time and dropped; what
  // is kept is where each one is, and they are read again when scored.
  const memoryWorldPaths = new Map<string, string>();
  for (const path of await listFiles(dir, `${RUN_FOLDER_DIRECTORY.worlds}/memory`)) {
    const match = MEMORY_WORLD_FILE.exec(path);
    if (match === null)
      throw new InvalidArgumentError(
        path,
        `expected ${RUN_FOLDER_DIRECTORY.worlds}/memory/w<seed>-n<load>.json.gz`,
      );
    const world = await readJson(dir, path, MemoryWorldSchema);
    if (String(world.seed) !== match[1] || String(world.load) !== match[2]) {
      throw new InvalidArgumentError(
        path,
        `file name says seed ${match[1]} load ${match[2]}, the world says seed ${world.seed} load ${world.load}`,
      );
    }
    memoryWorldPaths.set(memoryWorldKey(world.seed, world.load), path);
  }
  // history worlds and behavioral item sets likewise, keyed by the seed each file holds
  const historyWorldPaths = new Map<number, string>();
  for (const path of await listFiles(dir, `${RUN_FOLDER_DIRECTORY.worlds}/history`)) {
    if (!HISTORY_WORLD_FILE.test(path))
      throw new InvalidArgumentError(
        path,
        `expected ${RUN_FOLDER_DIRECTORY.worlds}/history/w<seed>.json.gz`,
      );
    historyWorldPaths.set((await readJson(dir, path, HistoryWorldSchema)).seed, path);
  }
  const behaviorItemPaths = new Map<number, string>();
  for (const path of await listFiles(dir, `${RUN_FOLDER_DIRECTORY.worlds}/behavior`)) {
    if (!BEHAVIOR_WORLD_FILE.test(path))
      throw new InvalidArgumentError(
        path,
        `expected ${RUN_FOLDER_DIRECTORY.worlds}/behavior/w<seed>.json.gz`,
      );
    behaviorItemPaths.set((await readJson(dir, path, BehavioralItemSetSchema)).seed, path);
  }

  // Requests: the index (or the 0.1 files) is checked once; every distinct payload is read,
  // checked against its hash and dropped here, and read again when scored.
  const folder = openRunFolder(dir);
  checkRequests(dir);
  const { requests, requestHashes } =
    folder.requestLayout === '0.2'
      ? await leanRequests(folder, onFileRead)
      : legacyRequests(folder, onFileRead);

  const notebookPaths = new Map<string, string>();
  const notebookOfRequest = new Map<string, string>();
  for (const path of await listFiles(dir, 'notebooks')) {
    const notebook = await readJson(dir, path, NotebookSnapshotSchema);
    notebookPaths.set(path, path);
    if (notebook.requestId !== null && !notebookOfRequest.has(notebook.requestId))
      notebookOfRequest.set(notebook.requestId, path);
  }

  // every CHIS log is checked here and read again when asked for
  const chisPaths = new Map<string, string>();
  for (const path of await listFiles(dir, 'chis')) {
    await readJsonLines(dir, path, ChisEntrySchema);
    chisPaths.set(path.slice(`${RUN_FOLDER_DIRECTORY.chis}/`.length).replace(/\.jsonl$/, ''), path);
  }

  const blocksText = await readOptionalText(dir, RUN_FILE_NAME.blocks);
  const catalogText = await readOptionalText(dir, RUN_FILE_NAME.catalog);
  const statusText = await readOptionalText(dir, RUN_FILE_NAME.status);
  const status =
    statusText === null
      ? null
      : parseWith(
          RunStatusSchema,
          parseJson(statusText, RUN_FILE_NAME.status),
          RUN_FILE_NAME.status,
        );
  const manifestSha256 = sha256Hex(canonicalJson(manifest));
  // the chain is checked once, with every anchor, by checkRunIntegrity below
  const attempts = await readAttemptRecordsLean(dir, onFileRead);

  const records: RunRecords = {
    manifest,
    manifestSha256,
    plan,
    prompts,
    memoryWorlds: lazyFiles(dir, memoryWorldPaths, MemoryWorldSchema, onFileRead),
    historyWorlds: lazyMap(dir, historyWorldPaths, HistoryWorldSchema, onFileRead),
    behaviorItems: lazyMap(dir, behaviorItemPaths, BehavioralItemSetSchema, onFileRead),
    worldPaths: WORLD_PATHS,
    requests,
    requestHashes,
    requestLayout: folder.requestLayout,
    attempts,
    notebooks: lazyFiles(dir, notebookPaths, NotebookSnapshotSchema, onFileRead),
    notebookOfRequest,
    failures: await readJsonLines(dir, RUN_FILE_NAME.failures, FailureLogEntrySchema),
    smoke: await readJsonLines(dir, RUN_FILE_NAME.smoke, SmokeResultSchema),
    ledger: await readJsonLines(dir, RUN_FILE_NAME.ledger, LedgerEntrySchema),
    chis: new LazyRunFiles(chisPaths, (path) => {
      onFileRead?.(path);
      return parseJsonLines(readFileSync(join(dir, path), 'utf8'), path, ChisEntrySchema);
    }),
    blocks:
      blocksText === null
        ? null
        : parseWith(
            z.array(BlockStatusSchema),
            parseJson(blocksText, RUN_FILE_NAME.blocks),
            RUN_FILE_NAME.blocks,
          ),
    calibration: await readRunCalibration(dir, manifest),
    catalog:
      catalogText === null
        ? null
        : parseWith(
            ModelCatalogSchema,
            parseJson(catalogText, RUN_FILE_NAME.catalog),
            RUN_FILE_NAME.catalog,
          ),
    status,
  };
  // The shared check (resume, score and verify alike): the chain and its anchors, the ledger,
  // the prompt templates; then what only a reader of the whole folder checks (request hashes).
  const shared = await checkRunIntegrity({
    root: dir,
    manifestSha256,
    manifest,
    status,
    release: options.release === true,
  });
  const own = integrityProblemsWith(records, {
    records: shared.chain.records,
    headSha256: shared.chain.headSha256,
    sha256s: [],
    problems: [],
  });
  throwIfDamaged(dir, new Map([...shared.problems, ...own]));
  return records;
}

/**
 * The key of a memory world in {@link RunRecords.memoryWorlds}: `w<seed>-n<load>` (the built-in
 * folders' `memoryFileKey`, which their scorers look worlds up by).
 */
export const memoryWorldKey: (seed: number, load: number) => string = memoryFileKey;
