import { existsSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { ChartDataSchema, evidenceBanner, type RunChartData, runChartData } from '@chi/analysis';
import { extractJsonBlock } from '@chi/experiment';
import { openRunFolder, type RunFolder } from '@chi/run';
import { runFileOf, runFolderPaths } from '@chi/run/internal';
import {
  type AttemptRecord,
  InvalidArgumentError,
  parseWith,
  type RenderedRequest,
} from '@chi/spec';
import { NotebookSnapshotSchema } from '@chi/spec/internal';
import type { ReportBlock } from '../document/report-block';
import { comparisonBlocks } from '../document/report-comparisons';
import { summaryBlocks } from '../document/report-summary';
import { requestsAt } from '../run-folder/plan-view';
import { scoreRun } from '../scoring/score-run';
import { cellOfRequest, type ViewCellRef, type ViewItem, viewItemsOf } from './view-items';
import {
  readViewProgressWithStates,
  type ViewProgress,
  type ViewRequestState,
} from './view-progress';
import {
  attemptsOf,
  readViewRunHead,
  readViewRunIndex,
  readWorldRecords,
  type ViewFileReader,
  type ViewRunHead,
  type ViewRunIndex,
} from './view-world-records';

/** A system as the viewer lists it. */
export interface ViewSystem {
  readonly id: string;
  readonly model: string;
  readonly evidenceClass: string;
  /** A declared reference condition (uncapped notebook), not an evaluated system. */
  readonly reference: boolean;
}

/** What the first screen shows (`api/summary`): small whatever the run's size. */
export interface ViewSummary {
  readonly kind: 'chi-view-summary';
  readonly runId: string;
  readonly protocol: string;
  /** The scripted-baseline banner, or null for an all-live run. */
  readonly banner: string | null;
  readonly systems: readonly ViewSystem[];
  /** The report's summary and paired comparisons (a release's chart data), or null before release. */
  readonly summary: readonly ReportBlock[] | null;
  /** The world seeds of the plan, ascending. */
  readonly worlds: readonly number[];
}

/**
 * One cell of a world as the system page's grid shows it: its requests and how many resolved
 * (from the attempt log, without scoring; the cell's page scores it).
 */
export interface ViewCell extends ViewCellRef {
  readonly requests: number;
  readonly resolved: number;
  readonly failed: number;
}

/** A page of worlds of one system (`api/worlds`). */
export interface ViewWorldPage {
  readonly systemId: string;
  /** Worlds of the run. */
  readonly total: number;
  readonly offset: number;
  readonly limit: number;
  readonly rows: readonly { readonly worldSeed: number; readonly cells: readonly ViewCell[] }[];
}

/** A page of items (`api/items`). */
export interface ViewItemPage {
  /** Items matching the query. */
  readonly total: number;
  /** Items of the cell by verdict pass (all of them, not only this page's). */
  readonly pass: number;
  /** Items of the cell by verdict reason (all of them, not only this page's). */
  readonly reasons: Readonly<Record<string, number>>;
  readonly start: number;
  readonly items: readonly ViewItem[];
}

/** One attempt of a request as the probe page shows it. */
export interface ViewAttempt {
  readonly attemptId: string;
  readonly phase: string;
  readonly at: string;
  readonly failure: string | null;
  readonly failureDetail: string | null;
  readonly tries: readonly {
    readonly tryIndex: number;
    readonly status: number | null;
    readonly failure: string;
    readonly waitMs: number | null;
  }[];
  readonly chargedUsd: number | null;
  readonly latencyMs: number | null;
}

/** One request with what it sent and what came back (`api/request`). */
export interface ViewRequest {
  readonly requestId: string;
  readonly messages: readonly { readonly role: string; readonly content: string }[];
  /** The reply text of its last resolved attempt, or null. */
  readonly reply: string | null;
  readonly attempts: readonly ViewAttempt[];
}

/** Query of {@link ViewRun.items}: one cell of one world of one system (its blocks are scored). */
export interface ViewItemQuery {
  readonly systemId: string;
  readonly world: number;
  readonly cellPath: string;
  readonly reason?: string;
  /** Items to skip and to return (default 0 and {@link ITEM_PAGE}). */
  readonly start?: number;
  readonly count?: number;
}

/** Worlds a page holds by default. */
export const WORLD_PAGE = 10;
/** Items a page holds by default. */
export const ITEM_PAGE = 500;

/**
 * A run read on demand: every method reads only what it answers (a page of worlds from the plan
 * and the attempt log, one cell's items scored from its blocks, one request, one notebook),
 * through `@chi/run`'s readers, and keeps only the plan's index, the request states of the last
 * progress and the last cell it scored.
 */
export interface ViewRun {
  summary(): Promise<ViewSummary>;
  progress(): Promise<ViewProgress>;
  worlds(systemId: string, offset?: number, limit?: number): Promise<ViewWorldPage>;
  items(query: ViewItemQuery): Promise<ViewItemPage>;
  /** One item with the question object exactly as its request sent it. */
  item(
    systemId: string,
    world: number,
    key: string,
  ): Promise<{ item: ViewItem; question: unknown } | null>;
  request(requestId: string): Promise<ViewRequest | null>;
  notebook(path: string): Promise<{ path: string; text: string }>;
}

/** Options of {@link openViewRun}. */
export interface ViewRunOptions {
  /**
   * Reads the run's manifest, status, chart data and plan (`fs.readFile` by default): a test
   * injects one to count the bytes the first screen reads.
   */
  readonly readFile?: ViewFileReader;
}

async function readChartData(dir: string, read: ViewFileReader): Promise<RunChartData | null> {
  const paths = runFolderPaths(dir);
  // a release holds its chart data at its root, a run folder inside its release
  for (const root of [dir, paths.releaseDir]) {
    try {
      const text = (await read(join(root, 'chart-data', 'chart-data.json'))).toString('utf8');
      return runChartData(ChartDataSchema.parse(JSON.parse(text)));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  return null;
}

function viewAttempt(a: AttemptRecord): ViewAttempt {
  return {
    attemptId: a.attemptId,
    phase: a.phase,
    at: a.at,
    failure: a.result?.failure ?? null,
    failureDetail: a.result?.failureDetail ?? a.reason ?? null,
    tries: (a.result?.tries ?? []).map((t) => ({
      tryIndex: t.tryIndex,
      status: t.status,
      failure: t.failure,
      waitMs: t.waitMs,
    })),
    chargedUsd: a.result?.chargedUsd ?? null,
    latencyMs: a.result?.latencyMs ?? null,
  };
}

/** The element of any JSON block of `text` whose `id` is `id`, else the `index`-th question. */
function questionOf(text: string, item: ViewItem): unknown {
  if (item.experiment === 'history') {
    const questions = extractJsonBlock(text, 'QUESTIONS');
    return Array.isArray(questions)
      ? (questions.find((q) => q?.id === item.probeId) ?? null)
      : null;
  }
  for (const match of text.matchAll(/^BEGIN ([A-Z_]+) JSON$/gm)) {
    const block = extractJsonBlock(text, match[1] as string);
    const found = Array.isArray(block)
      ? block.find((element) => (element as { id?: unknown } | null)?.id === item.probeId)
      : undefined;
    if (found !== undefined) return found;
  }
  return null;
}

/** The one scored cell the viewer keeps, valid while the attempt log is unchanged. */
interface ScoredCell {
  readonly key: string;
  readonly items: readonly ViewItem[];
  readonly attempts: ReadonlyMap<string, readonly AttemptRecord[]>;
}

/** The file's size and modification time, or `absent`: a cache key that changes when it grows. */
async function fileStamp(path: string): Promise<string> {
  return stat(path).then(
    (s) => `${s.size}:${s.mtimeMs}`,
    () => 'absent',
  );
}

/** The cells of one system's world from the plan, with their requests' states. */
function planCells(
  index: ViewRunIndex,
  systemId: string,
  worldSeed: number,
  states: ReadonlyMap<string, ViewRequestState>,
): ViewCell[] {
  const cells = new Map<
    string,
    ViewCellRef & { requests: number; resolved: number; failed: number }
  >();
  for (const request of requestsAt(
    index.plan,
    index.requestOrdinals.get(`${systemId}|${worldSeed}`),
  )) {
    const ref = cellOfRequest(request);
    if (ref === null) continue;
    const cell = cells.get(ref.cellPath) ?? { ...ref, requests: 0, resolved: 0, failed: 0 };
    cell.requests++;
    const state = states.get(request.requestId);
    if (state === 'resolved') cell.resolved++;
    else if (state === 'failed' || state === 'abandoned') cell.failed++;
    cells.set(ref.cellPath, cell);
  }
  return [...cells.values()].sort((a, b) => a.cellOrder - b.cellOrder);
}

/** The blocks of one system's world holding a request of the cell (scored whole). */
function cellBlocks(index: ViewRunIndex, systemId: string, worldSeed: number, cellPath: string) {
  const blocks = new Set<string>();
  for (const request of requestsAt(
    index.plan,
    index.requestOrdinals.get(`${systemId}|${worldSeed}`),
  ))
    if (cellOfRequest(request)?.cellPath === cellPath) blocks.add(request.blockId);
  return blocks;
}

/** The cell's items scored now (its blocks only), or the cell scored last while the log is unchanged. */
function cellScorer(indexed: () => Promise<ViewRunIndex>) {
  let kept: ScoredCell | null = null;
  return async (systemId: string, world: number, cellPath: string): Promise<ScoredCell> => {
    const index = await indexed();
    const stamp = await fileStamp(runFolderPaths(index.dir).attempts);
    const key = `${systemId}|${world}|${cellPath}|${stamp}`;
    if (kept !== null && kept.key === key) return kept;
    const blocks = cellBlocks(index, systemId, world, cellPath);
    const records = await readWorldRecords(index, [systemId], [world], blocks);
    const items = viewItemsOf(records, scoreRun(records)).filter((i) => i.cellPath === cellPath);
    const attempts = new Map<string, AttemptRecord[]>();
    for (const record of records.attempts)
      attempts.set(record.requestId, [...(attempts.get(record.requestId) ?? []), record]);
    kept = { key, items, attempts };
    return kept;
  };
}

function checkSystem(index: ViewRunHead, systemId: string): void {
  if (!index.manifest.systems.some((s) => s.id === systemId))
    throw new InvalidArgumentError('system', `no system ${JSON.stringify(systemId)} in this run`);
}

/**
 * The first screen: the manifest (already read), the status and the release's chart data; never
 * the plan, the attempt log or a request, so its cost does not grow with the plan's requests.
 */
async function readSummary(index: ViewRunHead, read: ViewFileReader): Promise<ViewSummary> {
  const paths = runFolderPaths(index.dir);
  const chartData = await readChartData(index.dir, read);
  const status = existsSync(paths.status)
    ? (JSON.parse((await read(paths.status)).toString('utf8')) as { runId?: string })
    : null;
  const { manifest } = index;
  return {
    kind: 'chi-view-summary',
    runId: status?.runId ?? chartData?.run.runId ?? index.manifestSha256.slice(0, 12),
    protocol: manifest.protocol,
    banner: evidenceBanner([
      manifest.evidenceClass,
      ...manifest.systems.map((s) => s.evidenceClass),
    ]),
    systems: manifest.systems.map((s) => ({
      id: s.id,
      model: s.model,
      evidenceClass: s.evidenceClass,
      reference: s.uncappedNotebook === true,
    })),
    summary:
      chartData === null ? null : [...summaryBlocks(chartData), ...comparisonBlocks(chartData)],
    worlds: [...manifest.worldSeeds].sort((a, b) => a - b),
  };
}

/** A page of matching items, with the cell's pass count and reasons over all its items. */
function itemPage(items: readonly ViewItem[], query: ViewItemQuery): ViewItemPage {
  const reasons: Record<string, number> = {};
  let pass = 0;
  for (const item of items) {
    reasons[item.reason] = (reasons[item.reason] ?? 0) + 1;
    if (item.verdict === 'pass') pass++;
  }
  const matching = items.filter((i) => query.reason === undefined || i.reason === query.reason);
  const start = Math.max(0, query.start ?? 0);
  return {
    total: matching.length,
    pass,
    reasons: Object.fromEntries(Object.entries(reasons).sort(([a], [b]) => (a < b ? -1 : 1))),
    start,
    items: matching.slice(start, start + Math.max(1, query.count ?? ITEM_PAGE)),
  };
}

/** The cell of an item key `<system>|<seed>|<cellPath>|<itemId>`. */
function cellOfKey(key: string): string {
  return key.split('|')[2] ?? '';
}

/**
 * The plan's index, built by the first call that needs it and kept; a failed read (a run being
 * created) is tried again by the next call.
 */
function planIndexer(head: ViewRunHead, read: ViewFileReader): () => Promise<ViewRunIndex> {
  let index: Promise<ViewRunIndex> | null = null;
  return () => {
    if (index === null) {
      index = readViewRunIndex(head, read);
      index.catch(() => {
        index = null;
      });
    }
    return index;
  };
}

/**
 * Opens the run folder or release at `dir` for the viewer. Reads the manifest now, indexes the
 * plan when a call first needs it (not the summary), and everything else when asked for.
 */
export async function openViewRun(dir: string, options: ViewRunOptions = {}): Promise<ViewRun> {
  // long-function: one closure holding the run's caches; each method is a few lines
  const read: ViewFileReader = options.readFile ?? ((path) => readFile(path));
  const head = await readViewRunHead(dir, read);
  const indexed = planIndexer(head, read);
  const paths = runFolderPaths(dir);
  const scoreCell = cellScorer(indexed);
  let last: ScoredCell | null = null;
  const scored = async (systemId: string, world: number, cellPath: string) => {
    last = await scoreCell(systemId, world, cellPath);
    return last;
  };
  let progress: {
    stamp: string;
    value: Promise<{ progress: ViewProgress; states: ReadonlyMap<string, ViewRequestState> }>;
  } | null = null;
  const progressNow = async () => {
    // one fold at a time, and none while the log and status are unchanged
    const stamp = `${await fileStamp(paths.attempts)}|${await fileStamp(paths.status)}`;
    if (progress === null || progress.stamp !== stamp)
      progress = { stamp, value: readViewProgressWithStates(dir) };
    return progress.value;
  };
  const readRequest = requestReader(dir);
  return {
    summary: () => readSummary(head, read),
    progress: async () => (await progressNow()).progress,
    async worlds(systemId, offset = 0, limit = WORLD_PAGE) {
      checkSystem(head, systemId);
      const index = await indexed();
      const { states } = await progressNow();
      const seeds = index.worlds.slice(offset, offset + Math.max(1, limit));
      return {
        systemId,
        total: index.worlds.length,
        offset,
        limit,
        rows: seeds.map((worldSeed) => ({
          worldSeed,
          cells: planCells(index, systemId, worldSeed, states),
        })),
      };
    },
    async items(query) {
      checkSystem(head, query.systemId);
      const { items } = await scored(query.systemId, query.world, query.cellPath);
      return itemPage(items, query);
    },
    async item(systemId, world, key) {
      checkSystem(head, systemId);
      const { items } = await scored(systemId, world, cellOfKey(key));
      const item = items.find((i) => i.key === key);
      if (item === undefined) return null;
      if (item.requestId === null) return { item, question: null };
      const request = await readRequest(item.requestId);
      const text = (request?.messages ?? []).map((m) => m.content).join('\n');
      return { item, question: questionOf(text, item) };
    },
    async request(requestId) {
      const request = await readRequest(requestId);
      if (request === null) return null;
      const cached = (last as ScoredCell | null)?.attempts.get(requestId);
      const attempts = cached ?? (await attemptsOf(dir, new Set([requestId])));
      const resolved = attempts.filter((a) => a.phase === 'after_response');
      return {
        requestId,
        messages: request.messages.map((m) => ({ role: m.role, content: m.content })),
        reply: resolved[resolved.length - 1]?.result?.text ?? null,
        attempts: attempts.map(viewAttempt),
      };
    },
    notebook: (path) => readNotebook(dir, path),
  };
}

/**
 * Reads one rendered request through `@chi/run` (`openRunFolder`), keeping its request index while
 * `requests.jsonl` is unchanged and the last request read (a cell's items share it).
 */
function requestReader(dir: string): (requestId: string) => Promise<RenderedRequest | null> {
  const paths = runFolderPaths(dir);
  let folder: { stamp: string; value: RunFolder } | null = null;
  let last: { id: string; request: RenderedRequest | null } | null = null;
  return async (requestId) => {
    const stamp = await fileStamp(paths.requestIndex);
    if (folder === null || folder.stamp !== stamp) folder = { stamp, value: openRunFolder(dir) };
    if (last?.id !== requestId)
      last = { id: requestId, request: await folder.value.readRequest(requestId) };
    return last.request;
  };
}

/** One notebook of the run folder by its relative path (a notebook file, nothing else). */
async function readNotebook(dir: string, path: string): Promise<{ path: string; text: string }> {
  const id = runFileOf(path)?.id;
  if (
    !(id === 'memoryNotebook' || id === 'historyNotebook' || id === 'moduleNotebook') ||
    path.includes('..')
  )
    throw new InvalidArgumentError(
      'path',
      `expected a notebook of the run folder, found ${JSON.stringify(path)}`,
    );
  const text = await readFile(join(dir, ...path.split('/')), 'utf8');
  return { path, text: parseWith(NotebookSnapshotSchema, JSON.parse(text), path).text };
}
