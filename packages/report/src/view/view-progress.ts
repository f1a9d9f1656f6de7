import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { RUN_FILE_NAME } from '@chi/run';

/** Progress of a run as the live page shows it. */
export interface ViewProgress {
  /** `status.json`'s state, or `running` when the run has written no status yet. */
  readonly state: string;
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
  /** Failed attempts counted by failure class (e.g. `http_retryable`, `timeout`). */
  readonly failuresByClass: Readonly<Record<string, number>>;
  /** Attempt-log lines read (a torn last line is skipped). */
  readonly attemptLines: number;
}

async function readOptional(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

interface AttemptLine {
  readonly requestId?: string;
  readonly phase?: string;
  readonly result?: { readonly failure?: string; readonly chargedUsd?: number } | null;
}

/**
 * Reads the progress of a run folder (or a release) from its raw files, tolerating a run in
 * progress: the attempt log may end in a torn line and status.json may be absent or stale. The
 * latest attempt line of a request decides its state.
 */
export async function readViewProgress(dir: string): Promise<ViewProgress> {
  const plan = JSON.parse(
    (await readOptional(join(dir, RUN_FILE_NAME.plan))) ?? '{"requests":[]}',
  ) as {
    requests?: unknown[];
  };
  const manifest = JSON.parse((await readOptional(join(dir, RUN_FILE_NAME.manifest))) ?? '{}') as {
    ceilingUsd?: number;
  };
  const status = JSON.parse((await readOptional(join(dir, RUN_FILE_NAME.status))) ?? 'null') as {
    state?: string;
  } | null;
  const log = (await readOptional(join(dir, RUN_FILE_NAME.attempts))) ?? '';
  const latest = new Map<string, AttemptLine>();
  const failuresByClass: Record<string, number> = {};
  let spentUsd = 0;
  let lines = 0;
  for (const text of log.split('\n')) {
    if (text.trim() === '') continue;
    let line: AttemptLine;
    try {
      line = JSON.parse(text) as AttemptLine;
    } catch {
      continue; // a torn last line of a run being written
    }
    lines++;
    if (typeof line.requestId !== 'string') continue;
    latest.set(line.requestId, line);
    const failure = line.result?.failure;
    if (line.phase === 'after_response' && failure !== undefined && failure !== 'none')
      failuresByClass[failure] = (failuresByClass[failure] ?? 0) + 1;
    spentUsd += line.result?.chargedUsd ?? 0;
  }
  const count = { notStarted: 0, inFlight: 0, resolved: 0, failed: 0, abandoned: 0 };
  for (const line of latest.values()) {
    if (line.phase === 'before_send') count.inFlight++;
    else if (line.phase === 'abandoned') count.abandoned++;
    else if ((line.result?.failure ?? 'none') === 'none') count.resolved++;
    else count.failed++;
  }
  const totalRequests = plan.requests?.length ?? 0;
  count.notStarted = Math.max(0, totalRequests - latest.size);
  return {
    state: status?.state ?? 'running',
    totalRequests,
    requests: count,
    spentUsd,
    ceilingUsd: manifest.ceilingUsd ?? 0,
    failuresByClass: Object.fromEntries(
      Object.entries(failuresByClass).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
    ),
    attemptLines: lines,
  };
}
