import { readFile } from 'node:fs/promises';
import {
  attemptLogLines,
  foldAttemptRecord,
  type RequestLogState,
  runFolderPaths,
} from '@chi/run/internal';
import { type AttemptRecord, ValidationError } from '@chi/spec';

/**
 * What the viewer says a run is: `in progress` while it runs (no `status.json` yet, or one that
 * says `running`), else `status.json`'s final state, or `damaged` when the attempt log is damaged
 * anywhere but its last line (a torn last line is a run being written, never damage).
 */
export type ViewRunState = 'in progress' | 'completed' | 'stopped' | 'failed' | 'damaged';

/** Progress of a run as the live page shows it. */
export interface ViewProgress {
  readonly state: ViewRunState;
  /** Why the run is `damaged` (the file and line), else null. */
  readonly damage: string | null;
  /** Registered requests (plan.json). */
  readonly totalRequests: number;
  /** Requests by state: never sent, in flight (sent, no answer yet), resolved, failed, abandoned. */
  readonly requests: {
    readonly notStarted: number;
    readonly inFlight: number;
    readonly resolved: number;
    readonly failed: number;
    readonly abandoned: number;
  };
  /** USD recorded as charged over every resolved attempt. */
  readonly spentUsd: number;
  /** The manifest's USD ceiling. */
  readonly ceilingUsd: number;
  /** No system is a live model: nothing is spent, and the page says so instead of `$0`. */
  readonly offline: boolean;
  /** Failed attempts counted by failure class (e.g. `http_retryable`, `timeout`). */
  readonly failuresByClass: Readonly<Record<string, number>>;
  /** Complete attempt-log lines read (a torn last line is not one). */
  readonly attemptLines: number;
}

/** The attempt log as progress reads it: every request's folded state, spend and failures. */
export interface AttemptProgress {
  /** The state of each request with a record (results without their reply text). */
  readonly states: ReadonlyMap<string, RequestLogState>;
  readonly spentUsd: number;
  readonly failuresByClass: Readonly<Record<string, number>>;
  readonly lines: number;
}

/** A record without its reply text and response body: the fold keeps only what progress counts. */
function withoutText(record: AttemptRecord): AttemptRecord {
  if (record.result === null) return record;
  return { ...record, result: { ...record.result, text: null, redactedResponse: null, tries: [] } };
}

/**
 * The viewer's one read of the attempt log: `@chi/run`'s one attempt-log reader
 * (`attemptLogLines`, which scoring reads with too: a torn last line is skipped, a bad line
 * anywhere else throws a `ValidationError` naming the file and line) and its one fold
 * (`foldAttemptRecord`), streamed in constant memory.
 */
export async function foldAttemptProgress(path: string): Promise<AttemptProgress> {
  const states = new Map<string, RequestLogState>();
  const failuresByClass: Record<string, number> = {};
  let spentUsd = 0;
  let lines = 0;
  for await (const line of attemptLogLines(path)) {
    const record = line.record;
    // a line held as possibly torn: the next line throws, or it is the skipped tail
    if (record === null) continue;
    lines++;
    foldAttemptRecord(states, withoutText(record));
    const failure = record.result?.failure;
    if (record.phase === 'after_response' && failure !== undefined && failure !== 'none')
      failuresByClass[failure] = (failuresByClass[failure] ?? 0) + 1;
    spentUsd += record.result?.chargedUsd ?? 0;
  }
  return { states, spentUsd, failuresByClass, lines };
}

async function readOptionalJson<T>(path: string): Promise<T | null> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as T;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/** Where a request with a record stands: the latest attempt decides. */
export type ViewRequestState = 'inFlight' | 'resolved' | 'failed' | 'abandoned';

function requestState(state: RequestLogState): ViewRequestState {
  if (state.openAttemptId !== null) return 'inFlight';
  if (state.result !== null) return state.result.failure === 'none' ? 'resolved' : 'failed';
  return 'abandoned';
}

/** The requests of a fold counted by state. */
function countRequests(states: ReadonlyMap<string, ViewRequestState>, totalRequests: number) {
  const count = { notStarted: 0, inFlight: 0, resolved: 0, failed: 0, abandoned: 0 };
  for (const state of states.values()) count[state]++;
  count.notStarted = Math.max(0, totalRequests - states.size);
  return count;
}

const EMPTY_FOLD: AttemptProgress = {
  states: new Map(),
  spentUsd: 0,
  failuresByClass: {},
  lines: 0,
};

/**
 * Reads the progress of a run folder (or a release) from its raw files, tolerating a run in
 * progress: the attempt log may end in a torn line and status.json may be absent or stale. A bad
 * line anywhere else in the log makes the run `damaged`, naming the line.
 */
export async function readViewProgress(dir: string): Promise<ViewProgress> {
  return (await readViewProgressWithStates(dir)).progress;
}

/**
 * {@link readViewProgress} and the state of every request with a record (a few bytes each: the
 * viewer's grid shows each cell's requests without scoring it).
 */
export async function readViewProgressWithStates(dir: string): Promise<{
  readonly progress: ViewProgress;
  readonly states: ReadonlyMap<string, ViewRequestState>;
}> {
  const paths = runFolderPaths(dir);
  const plan = await readOptionalJson<{ requests?: unknown[] }>(paths.plan);
  const manifest = await readOptionalJson<{
    ceilingUsd?: number;
    systems?: { evidenceClass?: string }[];
  }>(paths.manifest);
  const status = await readOptionalJson<{ state?: string }>(paths.status);
  let fold = EMPTY_FOLD;
  let damage: string | null = null;
  try {
    fold = await foldAttemptProgress(paths.attempts);
  } catch (error) {
    if (!ValidationError.isInstance(error)) throw error;
    damage = error.message.replace(/\n\s*/g, ' ');
  }
  const totalRequests = plan?.requests?.length ?? 0;
  const states = new Map<string, ViewRequestState>();
  for (const [id, state] of fold.states) states.set(id, requestState(state));
  const finalState = status?.state;
  const progress: ViewProgress = {
    state:
      damage !== null
        ? 'damaged'
        : finalState === 'completed' || finalState === 'stopped' || finalState === 'failed'
          ? finalState
          : 'in progress',
    damage,
    totalRequests,
    requests: countRequests(states, totalRequests),
    spentUsd: fold.spentUsd,
    ceilingUsd: manifest?.ceilingUsd ?? 0,
    offline: !(manifest?.systems ?? []).some((s) => s.evidenceClass === 'live_model'),
    failuresByClass: Object.fromEntries(
      Object.entries(fold.failuresByClass).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
    ),
    attemptLines: fold.lines,
  };
  return { progress, states };
}
