import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { relative, sep } from 'node:path';
import { openRunFolder } from '@chi/run';
import { RUN_FILE_NAME, runFolderPaths, streamRunJsonl } from '@chi/run/internal';
import {
  type AttemptRecord,
  AttemptRecordSchema,
  BehavioralItemSetSchema,
  HistoryWorldSchema,
  MemoryWorldSchema,
  type PlannedBlock,
  type PlannedRequest,
  parseWith,
  RunFolderDamagedError,
  type RunManifest,
  RunManifestSchema,
  type RunPlan,
} from '@chi/spec';
import { HISTORY_IDS, NotebookSnapshotSchema } from '@chi/spec/internal';
import { canonicalJson, sha256Hex } from '../canonical-json';
import { groupRequestOrdinals, readPlanView, requestsAt } from '../run-folder/plan-view';
import {
  lazyFiles,
  memoryWorldKey,
  type RunRecords,
  runFilesOf,
  WORLD_PATHS,
} from '../run-folder/run-folder';

/**
 * What the viewer keeps of a run between requests: the manifest and the plan as an index over
 * its file's bytes (`readPlanView`: numbers and offsets, each request parsed when reached), with
 * the ordinals of each world's requests and blocks. Memory grows with the plan's index, never
 * with worlds, requests, replies or notebooks, which are read when a page asks for them.
 */
export interface ViewRunIndex {
  readonly dir: string;
  readonly manifest: RunManifest;
  readonly manifestSha256: string;
  readonly plan: RunPlan;
  /** World seeds of the plan, ascending. */
  readonly worlds: readonly number[];
  /** Ordinals in `plan.requests` by `<systemId>|<worldSeed>`. */
  readonly requestOrdinals: ReadonlyMap<string, readonly number[]>;
  /** Ordinals in `plan.blocks` by world seed. */
  readonly blockOrdinals: ReadonlyMap<number, readonly number[]>;
}

/** Reads a file of the run whole: `fs.readFile` unless a test injects one to count what is read. */
export type ViewFileReader = (path: string) => Promise<Buffer>;

/** What the viewer reads of a run to open it: the manifest alone (a few kilobytes at any size). */
export interface ViewRunHead {
  readonly dir: string;
  readonly manifest: RunManifest;
  readonly manifestSha256: string;
}

/**
 * Reads the manifest of the run folder or release at `dir`, and nothing else.
 *
 * @throws RunFolderDamagedError when it is not JSON; ValidationError when it breaks its schema
 */
export async function readViewRunHead(
  dir: string,
  read: ViewFileReader = (path) => readFile(path),
): Promise<ViewRunHead> {
  const paths = runFolderPaths(dir);
  const manifestText = (await read(paths.manifest)).toString('utf8');
  let json: unknown;
  try {
    json = JSON.parse(manifestText);
  } catch (error) {
    throw new RunFolderDamagedError(
      RUN_FILE_NAME.manifest,
      `not valid JSON (${error instanceof Error ? error.message : String(error)})`,
      { cause: error },
    );
  }
  const manifest = parseWith(RunManifestSchema, json, RUN_FILE_NAME.manifest);
  return { dir, manifest, manifestSha256: sha256Hex(canonicalJson(manifest)) };
}

/**
 * Indexes the plan of the run whose head is `head` (the first call that needs the plan: a page of
 * worlds, a cell; never the first screen, which needs the manifest alone).
 */
export async function readViewRunIndex(
  head: ViewRunHead,
  read: ViewFileReader = (path) => readFile(path),
): Promise<ViewRunIndex> {
  const paths = runFolderPaths(head.dir);
  const plan = readPlanView(await read(paths.plan), paths.plan);
  const blockOrdinals = new Map<number, number[]>();
  plan.blocks.forEach((block, ordinal) => {
    const list = blockOrdinals.get(block.worldSeed);
    if (list === undefined) blockOrdinals.set(block.worldSeed, [ordinal]);
    else list.push(ordinal);
  });
  return {
    ...head,
    plan,
    worlds: [...blockOrdinals.keys()].sort((a, b) => a - b),
    requestOrdinals: groupRequestOrdinals(plan, (r) => `${r.systemId}|${r.worldSeed}`),
    blockOrdinals,
  };
}

/** A path of `runFolderPaths` relative to the folder, with POSIX separators. */
function relativePath(dir: string, path: string): string {
  return relative(dir, path).split(sep).join('/');
}

/** The path of a world file, `.json.gz` (layout 0.2) or `.json` (0.1), whichever exists. */
function worldFile(dir: string, path: string): string | null {
  if (existsSync(path)) return relativePath(dir, path);
  const plain = path.replace(/\.gz$/, '');
  return existsSync(plain) ? relativePath(dir, plain) : null;
}

/** The world files of `seeds`, keyed as `RunRecords` keys them. */
function worldFiles(dir: string, blocks: readonly PlannedBlock[]) {
  const paths = runFolderPaths(dir);
  const memory = new Map<string, string>();
  const history = new Map<number, string>();
  const behavior = new Map<number, string>();
  for (const block of blocks) {
    const seed = block.worldSeed;
    if (block.load !== null) {
      const path = worldFile(dir, paths.memoryWorld(seed, block.load));
      if (path !== null) memory.set(memoryWorldKey(seed, block.load), path);
    }
    const historyPath = worldFile(dir, paths.historyWorld(seed));
    if (historyPath !== null) history.set(seed, historyPath);
    const behaviorPath = worldFile(dir, paths.behaviorWorld(seed));
    if (behaviorPath !== null) behavior.set(seed, behaviorPath);
  }
  return { memory, history, behavior };
}

/** The memory and history notebooks of `systems` on the worlds of `blocks`, and who wrote each. */
async function worldNotebooks(
  dir: string,
  systems: readonly string[],
  blocks: readonly PlannedBlock[],
) {
  const paths = runFolderPaths(dir);
  const candidates = new Set<string>();
  for (const systemId of systems)
    for (const block of blocks) {
      if (block.load !== null)
        candidates.add(paths.memoryNotebook(systemId, block.worldSeed, block.load));
      for (const history of HISTORY_IDS)
        for (let checkpoint = 0; checkpoint <= 4; checkpoint++)
          candidates.add(paths.historyNotebook(systemId, block.worldSeed, history, checkpoint));
    }
  const notebookPaths = new Map<string, string>();
  const notebookOfRequest = new Map<string, string>();
  for (const path of [...candidates].sort()) {
    if (!existsSync(path)) continue;
    const rel = relativePath(dir, path);
    const snapshot = parseWith(
      NotebookSnapshotSchema,
      JSON.parse(await readFile(path, 'utf8')),
      rel,
    );
    notebookPaths.set(rel, rel);
    if (snapshot.requestId !== null && !notebookOfRequest.has(snapshot.requestId))
      notebookOfRequest.set(snapshot.requestId, rel);
  }
  return { notebookPaths, notebookOfRequest };
}

/**
 * The attempt records of `requestIds`, in log order, through `@chi/run`'s JSONL reader (a torn
 * last line skipped; a bad line elsewhere throws naming it), streamed: memory holds only them.
 */
export async function attemptsOf(
  dir: string,
  requestIds: ReadonlySet<string>,
): Promise<AttemptRecord[]> {
  const out: AttemptRecord[] = [];
  for await (const record of streamRunJsonl(runFolderPaths(dir).attempts, AttemptRecordSchema))
    if (requestIds.has(record.requestId)) out.push(record);
  return out;
}

/**
 * The records of a run restricted to `systems` on `seeds` (and to the blocks `blockIds` when
 * given): their planned requests and blocks,
 * attempt records, world files, rendered requests and notebooks, each read when asked for. What
 * `scoreRun` needs to score those worlds exactly as the release scores them, without reading the
 * rest of the run.
 */
export async function readWorldRecords(
  index: ViewRunIndex,
  systems: readonly string[],
  seeds: readonly number[],
  blockIds?: ReadonlySet<string>,
): Promise<RunRecords> {
  const { dir, plan } = index;
  const requests: PlannedRequest[] = [];
  for (const seed of seeds)
    for (const systemId of systems)
      for (const request of requestsAt(plan, index.requestOrdinals.get(`${systemId}|${seed}`)))
        if (blockIds === undefined || blockIds.has(request.blockId)) requests.push(request);
  const ids = new Set(requests.map((r) => r.requestId));
  const blocks = seeds
    .flatMap((seed) =>
      (index.blockOrdinals.get(seed) ?? []).map((o) => plan.blocks[o] as PlannedBlock),
    )
    .filter((block) => blockIds === undefined || blockIds.has(block.blockId))
    .map((block) => ({ ...block, requestIds: block.requestIds.filter((id) => ids.has(id)) }));
  const files = worldFiles(dir, blocks);
  const folder = openRunFolder(dir);
  const requestIndex = folder.readRequestIndexSync();
  const requestPaths = new Map<string, string>();
  const requestHashes = new Map<string, string>();
  for (const id of ids) {
    const entry = requestIndex.get(id);
    if (entry === undefined) continue;
    requestPaths.set(id, folder.requestFile(id) ?? id);
    requestHashes.set(id, entry.requestSha256);
  }
  const { notebookPaths, notebookOfRequest } = await worldNotebooks(dir, systems, blocks);
  const memoryWorlds = lazyFiles(dir, files.memory, MemoryWorldSchema, undefined);
  const historyWorlds = lazyFiles(dir, files.history, HistoryWorldSchema, undefined);
  const behaviorItems = lazyFiles(dir, files.behavior, BehavioralItemSetSchema, undefined);
  return {
    manifest: {
      ...index.manifest,
      systems: index.manifest.systems.filter((s) => systems.includes(s.id)),
    },
    manifestSha256: index.manifestSha256,
    plan: { kind: 'run-plan', schemaVersion: 1, requests, blocks },
    prompts: [],
    memoryWorlds,
    historyWorlds: new Map(
      [...files.history.keys()].map((seed) => [seed, historyWorlds.get(seed)!]),
    ),
    behaviorItems: new Map(
      [...files.behavior.keys()].map((seed) => [seed, behaviorItems.get(seed)!]),
    ),
    worldPaths: WORLD_PATHS,
    requests: runFilesOf(requestPaths, (_path, id) => folder.readRequestSync(id)!),
    requestHashes,
    requestLayout: folder.requestLayout,
    attempts: await attemptsOf(dir, ids),
    notebooks: lazyFiles(dir, notebookPaths, NotebookSnapshotSchema, undefined),
    notebookOfRequest,
    failures: [],
    smoke: [],
    ledger: [],
    chis: runFilesOf(new Map(), () => []),
    blocks: null,
    status: null,
  };
}
