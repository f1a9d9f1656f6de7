import { readFile } from 'node:fs/promises';
import {
  type AttemptRecord,
  AttemptRecordSchema,
  type BehavioralItemSet,
  BehavioralItemSetSchema,
  type HistoryWorld,
  HistoryWorldSchema,
  type MemoryWorld,
  MemoryWorldSchema,
  parseWith,
  RunFolderDamagedError,
  type RunManifest,
  RunManifestSchema,
} from '@chi/spec';
import { RunPlanSchema } from '@chi/spec/internal';
import type { z } from 'zod';
import { readAttemptAnchor } from './attempt-anchor';
import type { AttemptLogAnchor } from './attempt-chain';
import { type AttemptLogReading, readAttemptLogLean } from './attempt-log-reader';
import { indexPlan, type PlanIndex } from './plan-index';
import { RUN_FILE_NAME, type RunPaths } from './run-files';
import { decodeGzipJson, openRunFolder, type RunFolder } from './run-folder';
import { streamRunJsonl } from './run-jsonl';

/**
 * A run folder (or the raw part of a release) opened for reading: every run file through one
 * object, each read when asked for and with the run folder's rules. Streaming stays streaming: the
 * attempt log is a stream or a lean reading (16 bytes a record), worlds are read one at a time,
 * requests one at a time from their payloads, so memory grows with the largest world, not with
 * the run.
 */
export interface OpenedRun {
  /** Every path of the folder. */
  readonly paths: RunPaths;
  /** The rendered requests: index, payloads, one request at a time (`openRunFolder`). */
  readonly requests: RunFolder;
  /** `manifest.json`, parsed with `RunManifestSchema`. */
  manifest(): Promise<RunManifest>;
  /** `plan.json` indexed by request ordinal (its bytes kept, each request parsed when asked for). */
  plan(): Promise<PlanIndex>;
  /** The attempt log record by record, in file order (a torn last line skipped). */
  attempts(): AsyncGenerator<AttemptRecord, void, undefined>;
  /**
   * The attempt log read once and checked against its hash chain (`manifestSha256` and the
   * anchor of `attempts.head.json`), its records read back from the file when asked for.
   */
  attemptLog(manifestSha256: string): Promise<AttemptLogReading>;
  /** One memory world (`worlds/memory/w<seed>-n<load>.json.gz`). */
  memoryWorld(seed: number, load: number): Promise<MemoryWorld>;
  /** One history world (`worlds/history/w<seed>.json.gz`). */
  historyWorld(seed: number): Promise<HistoryWorld>;
  /** One behavior item set (`worlds/behavior/w<seed>.json.gz`). */
  behaviorWorld(seed: number): Promise<BehavioralItemSet>;
}

async function readJsonFile<S extends z.ZodType>(
  path: string,
  schema: S,
  name: string,
): Promise<z.output<S>> {
  return parseWith(schema, JSON.parse(await readFile(path, 'utf8')), name);
}

/** A world file: gzip JSON (layout 0.2) or, without `.gz`, plain JSON (layout 0.1). */
async function readWorld<S extends z.ZodType>(path: string, schema: S): Promise<z.output<S>> {
  try {
    return parseWith(schema, decodeGzipJson(await readFile(path), path), path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  return readJsonFile(path.replace(/\.gz$/, ''), schema, path.replace(/\.gz$/, ''));
}

/**
 * Opens the run folder at `dir` for reading. Nothing is read until a method is called.
 *
 * @example
 * ```ts
 * const run = openRun('chi-runs/20260901T080000Z-1a2b3c4d');
 * const manifest = await run.manifest();
 * for await (const record of run.attempts()) count(record);
 * ```
 */
export function openRun(dir: string): OpenedRun {
  const requests = openRunFolder(dir);
  const { paths } = requests;
  return {
    paths,
    requests,
    manifest: () => readJsonFile(paths.manifest, RunManifestSchema, RUN_FILE_NAME.manifest),
    async plan() {
      const bytes = await readFile(paths.plan);
      const plan = parseWith(RunPlanSchema, JSON.parse(bytes.toString('utf8')), RUN_FILE_NAME.plan);
      return indexPlan(bytes, plan, RUN_FILE_NAME.plan);
    },
    attempts: () => streamRunJsonl(paths.attempts, AttemptRecordSchema),
    async attemptLog(manifestSha256) {
      const anchor = await readAttemptAnchor(paths.attemptsHead);
      if (anchor.kind === 'damaged')
        throw new RunFolderDamagedError(paths.attemptsHead, anchor.problem);
      const anchored: AttemptLogAnchor | null = anchor.kind === 'anchor' ? anchor.anchor : null;
      return readAttemptLogLean(dir, manifestSha256, anchored);
    },
    memoryWorld: (seed, load) => readWorld(paths.memoryWorld(seed, load), MemoryWorldSchema),
    historyWorld: (seed) => readWorld(paths.historyWorld(seed), HistoryWorldSchema),
    behaviorWorld: (seed) => readWorld(paths.behaviorWorld(seed), BehavioralItemSetSchema),
  };
}
