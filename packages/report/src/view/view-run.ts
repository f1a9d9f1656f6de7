import { existsSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import {
  extractJsonBlock,
  openRunFolder,
  type RunFolder,
  runFileOf,
  runFolderPaths,
} from '@chi/run';
import {
  type AttemptRecord,
  InvalidArgumentError,
  NotebookSnapshotSchema,
  parseWith,
  type RenderedRequest,
} from '@chi/spec';
import { type ChartData, ChartDataSchema } from '../chart-data';
import { evidenceBanner } from '../evidence-label';
import { comparisonBlocks } from '../report-comparisons';
import type { ReportBlock } from '../report-document';
import { summaryBlocks } from '../report-summary';
import { scoreRun } from '../score-run';
import type { ViewItem } from './view-items';
import { viewItemsOf } from './view-items';
import { readViewProgress, type ViewProgress } from './view-progress';
import {
  attemptsOf,
  readViewRunIndex,
  readWorldRecords,
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

/** One cell of a world as the system page's grid shows it. */
export interface ViewCell {
  readonly cell: string;
  readonly cellPath: string;
  readonly cellOrder: number;
  readonly pass: number;
  readonly total: number;
  readonly complete: boolean;
}

/** A page of worlds of one system (`api/worlds`). */
export interface ViewWorldPage {
  readonly systemId: string;
  /** Worlds of the run. */
  readonly total: number;
  readonly offset: number;
  readonly limit: number;
  readonly rows: readonly { readonly worldSeed: number; readonly cells: readonly ViewCell[] }[];
  /** Items of the page's worlds by verdict reason. */
  readonly reasons: Readonly<Record<string, number>>;
}

/** A page of items (`api/items`). */
export interface ViewItemPage {
  /** Items matching the query. */
  readonly total: number;
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

/** Query of {@link ViewRun.items}. */
export interface ViewItemQuery {
  readonly systemId: string;
  /** One world; without it, the worlds of the page `offset`, `limit` of {@link ViewRun.worlds}. */
  readonly world?: number;
  readonly offset?: number;
  readonly limit?: number;
  readonly cellPath?: string;
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
 * A run read on demand: every method reads only what it answers (a page of worlds, one world's
 * items, one request, one notebook), through `@chi/run`'s readers, and keeps only the plan's index
 * and the last page it scored.
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

async function readChartData(dir: string): Promise<ChartData | null> {
  const paths = runFolderPaths(dir);
  // a release holds its chart data at its root, a run folder inside its release
  for (const root of [dir, paths.releaseDir]) {
    try {
      const text = await readFile(join(root, 'chart-data', 'chart-data.json'), 'utf8');
      return ChartDataSchema.parse(JSON.parse(text));
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

/** The one scored page the viewer keeps: its worlds' items, valid while the log is unchanged. */
interface ScoredPage {
  readonly systemId: string;
  /** The attempt log's {@link fileStamp} when scored. */
  readonly stamp: string;
  readonly seeds: readonly number[];
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

/**
 * Opens the run folder or release at `dir` for the viewer. Reads the manifest and indexes the
 * plan now; everything else when asked for.
 */
export async function openViewRun(dir: string): Promise<ViewRun> {
  const index: ViewRunIndex = await readViewRunIndex(dir);
  const paths = runFolderPaths(dir);
  let page: ScoredPage | null = null;
  let progress: { stamp: string; value: Promise<ViewProgress> } | null = null;

  /** The items of `systemId` on `seeds`, scored now or taken from the page scored last. */
  const scored = async (systemId: string, seeds: readonly number[]): Promise<ScoredPage> => {
    const stamp = await fileStamp(paths.attempts);
    const kept = page;
    if (
      kept !== null &&
      kept.systemId === systemId &&
      kept.stamp === stamp &&
      seeds.every((seed) => kept.seeds.includes(seed))
    )
      return { ...kept, items: kept.items.filter((i) => seeds.includes(i.worldSeed)) };
    const records = await readWorldRecords(index, [systemId], seeds);
    const items = viewItemsOf(records, scoreRun(records));
    const attempts = new Map<string, AttemptRecord[]>();
    for (const record of records.attempts) {
      const list = attempts.get(record.requestId);
      if (list === undefined) attempts.set(record.requestId, [record]);
      else list.push(record);
    }
    page = { systemId, stamp, seeds, items, attempts };
    return page;
  };

  // one request index while requests.jsonl is unchanged, and the last request's text
  let folder: { stamp: string; value: RunFolder } | null = null;
  const runFolder = async (): Promise<RunFolder> => {
    const stamp = await fileStamp(paths.requestIndex);
    if (folder === null || folder.stamp !== stamp) folder = { stamp, value: openRunFolder(dir) };
    return folder.value;
  };
  let lastRequest: { id: string; request: RenderedRequest | null } | null = null;
  const readRequest = async (requestId: string): Promise<RenderedRequest | null> => {
    if (lastRequest?.id !== requestId)
      lastRequest = { id: requestId, request: await (await runFolder()).readRequest(requestId) };
    return lastRequest.request;
  };

  const pageSeeds = (offset = 0, limit = WORLD_PAGE) =>
    index.worlds.slice(Math.max(0, offset), Math.max(0, offset) + Math.max(1, limit));

  const checkSystem = (systemId: string) => {
    if (!index.manifest.systems.some((s) => s.id === systemId))
      throw new InvalidArgumentError('system', `no system ${JSON.stringify(systemId)} in this run`);
  };

  return {
    async summary() {
      const chartData = await readChartData(dir);
      const status = existsSync(paths.status)
        ? (JSON.parse(await readFile(paths.status, 'utf8')) as { runId?: string })
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
        worlds: index.worlds,
      };
    },
    async progress() {
      // one fold at a time, and none while the log and status are unchanged
      const stamp = `${await fileStamp(paths.attempts)}|${await fileStamp(paths.status)}`;
      if (progress === null || progress.stamp !== stamp)
        progress = { stamp, value: readViewProgress(dir) };
      return progress.value;
    },
    async worlds(systemId, offset = 0, limit = WORLD_PAGE) {
      checkSystem(systemId);
      const seeds = pageSeeds(offset, limit);
      const { items } = await scored(systemId, seeds);
      const reasons: Record<string, number> = {};
      for (const item of items) reasons[item.reason] = (reasons[item.reason] ?? 0) + 1;
      return {
        systemId,
        total: index.worlds.length,
        offset,
        limit,
        rows: seeds.map((worldSeed) => ({ worldSeed, cells: cellsOf(items, worldSeed) })),
        reasons: Object.fromEntries(Object.entries(reasons).sort(([a], [b]) => (a < b ? -1 : 1))),
      };
    },
    async items(query) {
      checkSystem(query.systemId);
      const seeds =
        query.world === undefined ? pageSeeds(query.offset, query.limit) : [query.world];
      const { items } = await scored(query.systemId, seeds);
      const matching = items.filter(
        (i) =>
          (query.cellPath === undefined || i.cellPath === query.cellPath) &&
          (query.reason === undefined || i.reason === query.reason),
      );
      const start = Math.max(0, query.start ?? 0);
      return {
        total: matching.length,
        start,
        items: matching.slice(start, start + Math.max(1, query.count ?? ITEM_PAGE)),
      };
    },
    async item(systemId, world, key) {
      checkSystem(systemId);
      const { items } = await scored(systemId, [world]);
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
      const cached = page?.attempts.get(requestId);
      const attempts = cached ?? (await attemptsOf(dir, new Set([requestId])));
      const resolved = attempts.filter((a) => a.phase === 'after_response');
      return {
        requestId,
        messages: request.messages.map((m) => ({ role: m.role, content: m.content })),
        reply: resolved[resolved.length - 1]?.result?.text ?? null,
        attempts: attempts.map(viewAttempt),
      };
    },
    async notebook(path) {
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
    },
  };
}

/** The cells of one world's items, in cell order, with their pass counts. */
function cellsOf(items: readonly ViewItem[], worldSeed: number): ViewCell[] {
  const cells = new Map<
    string,
    { cell: ViewCell; pass: number; total: number; complete: boolean }
  >();
  for (const item of items) {
    if (item.worldSeed !== worldSeed) continue;
    const entry = cells.get(item.cellPath) ?? {
      cell: {
        cell: item.cell,
        cellPath: item.cellPath,
        cellOrder: item.cellOrder,
        pass: 0,
        total: 0,
        complete: true,
      },
      pass: 0,
      total: 0,
      complete: true,
    };
    entry.total++;
    if (item.verdict === 'pass') entry.pass++;
    if (!item.blockComplete) entry.complete = false;
    cells.set(item.cellPath, entry);
  }
  return [...cells.values()]
    .map((e) => ({ ...e.cell, pass: e.pass, total: e.total, complete: e.complete }))
    .sort((a, b) => a.cellOrder - b.cellOrder);
}
