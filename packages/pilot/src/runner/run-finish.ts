import { blockStatusOf, readRunJsonl } from '@chi/run/internal';
import type { BlockStatus, RunStatus } from '@chi/spec';
import { FailureLogEntrySchema } from '@chi/spec/internal';
import type { PilotProgress } from '../events';
import { openRunLog, writeJsonFile } from '../run-folder/run-folder';
import { runCeilingUsd } from '../shard/shard-manifest';
import type { ExecuteOutcome } from './execute-options';
import { type RunSession, type StopReason, sessionProgress } from './run-session';

/** Request IDs whose dependency failure is already in `failures.jsonl` (not logged twice on resume). */
async function loggedDependencyFailures(path: string): Promise<Set<string>> {
  // A line corrupt before the last is a damaged run folder, named (exit 5).
  const { records } = await openRunLog(path, () => readRunJsonl(path, FailureLogEntrySchema));
  return new Set(
    records.flatMap((entry) => (entry.category === 'dependency' ? [entry.requestId] : [])),
  );
}

/** One `dependency` failure line for each request blocked this session, unless logged before. */
export async function logBlockedRequests(session: RunSession): Promise<void> {
  const { run, outcomes } = session;
  const loggedDependency = await loggedDependencyFailures(run.paths.failures);
  for (let ordinal = 0; ordinal < run.plan.requestCount; ordinal += 1) {
    if (outcomes.kindOf(ordinal) !== 'blocked') continue;
    const request = run.plan.requestAt(ordinal);
    if (loggedDependency.has(request.requestId)) continue;
    const by = run.plan.requestAt(outcomes.blockedByOf(ordinal)).requestId;
    await session.failureWriter.append({
      kind: 'failure',
      at: session.now().toISOString(),
      requestId: request.requestId,
      attemptId: null,
      systemId: request.systemId,
      blockId: request.blockId,
      category: 'dependency',
      failure: null,
      detail: `not sent: ${by} produced no notebook`,
      retryWaitsMs: [],
    });
  }
}

/** Why the session ended early: its fatal error first, else its stop; null when it did not. */
export function stopReasonOf(session: RunSession): StopReason | null {
  const fatal = session.fatal;
  return fatal !== null
    ? { kind: 'error', message: (fatal as Error).message ?? String(fatal) }
    : session.stop;
}

/** Every request without an outcome is `not_sent`, saying whether a stop or the end caused it. */
export function markNotSent(session: RunSession, stopReason: StopReason | null): void {
  const outcome = {
    kind: 'not_sent',
    reason: stopReason === null ? 'run unfinished' : `${stopReason.kind} stop`,
  } as const;
  for (let ordinal = 0; ordinal < session.run.plan.requestCount; ordinal += 1)
    if (!session.outcomes.has(ordinal)) session.outcomes.set(ordinal, outcome);
}

/** The `status.json` of a finished session. */
function runStatusOf(
  session: RunSession,
  finished: {
    readonly state: ExecuteOutcome['state'];
    readonly stopReason: StopReason | null;
    readonly resumes: number;
    readonly blocks: readonly BlockStatus[];
    readonly progress: PilotProgress;
    readonly elapsedMs: number;
  },
): RunStatus {
  const { run } = session;
  const { blocks, progress } = finished;
  const counts = session.outcomes.counts();
  return {
    kind: 'run-status',
    runId: run.runId,
    manifestSha256: run.frozen.sha256,
    state: finished.state,
    startedAt: run.previousStatus?.startedAt ?? run.manifest.createdAt,
    updatedAt: session.now().toISOString(),
    finishedAt: session.now().toISOString(),
    resumes: finished.resumes,
    requests: {
      total: run.plan.requestCount,
      resolved: progress.done,
      failed: progress.failures,
      abandoned: counts.abandoned,
      notSent: counts.blocked + counts.notSent + counts.pending,
    },
    spend: {
      ceilingUsd: runCeilingUsd(run.manifest),
      committedUsd: progress.committedUsd,
      chargedUsd: session.chargedUsd,
    },
    stop: finished.stopReason,
    blocks: {
      complete: blocks.filter((block) => block.status === 'complete').length,
      incomplete: blocks.filter((block) => block.status === 'incomplete').length,
      notStarted: blocks.filter((block) => block.status === 'not_started').length,
    },
    elapsedMs: (run.previousStatus?.elapsedMs ?? 0) + finished.elapsedMs,
    exitCode: null,
    attemptLog: session.attemptWriter.head(),
  };
}

/** The status of every block, read from the packed outcomes (`blockStatusOf` of `@chi/run`). */
function sessionBlockStatuses(session: RunSession): BlockStatus[] {
  const { plan } = session.run;
  const statuses: BlockStatus[] = [];
  for (let block = 0; block < plan.blockCount; block += 1) {
    const ordinals = plan.blockRequests(block);
    statuses.push(
      blockStatusOf(plan.blockAt(block), (_, position) =>
        session.outcomes.blockState(ordinals[position] as number),
      ),
    );
  }
  return statuses;
}

/**
 * Writes what a session ends with: block statuses, then the run status (durable), then the
 * `run-finished` event. Returns the outcome `executeRun` resolves with.
 */
export async function finishSession(
  session: RunSession,
  resumes: number,
  stopReason: StopReason | null,
  startedMs: number,
): Promise<ExecuteOutcome> {
  const { run } = session;
  const blocks = sessionBlockStatuses(session);
  await writeJsonFile(run.paths.blocks, blocks);
  const progress = await sessionProgress(session);
  const state: ExecuteOutcome['state'] =
    session.fatal !== null ? 'failed' : session.stop !== null ? 'stopped' : 'completed';
  const elapsedMs = Date.now() - startedMs;
  const completeBlocks = blocks.filter((block) => block.status === 'complete').length;
  const status = runStatusOf(session, { state, stopReason, resumes, blocks, progress, elapsedMs });
  await writeJsonFile(run.paths.status, status, { durable: true });
  session.emit({ type: 'run-finished', state, progress, elapsedMs });
  return {
    runDir: session.options.runDir,
    runId: run.runId,
    state,
    stop: stopReason,
    progress,
    elapsedMs,
    completeBlocks,
    incompleteBlocks: blocks.length - completeBlocks,
  };
}

/**
 * Records a session that an error ended before {@link finishSession} could: `status.json` (when
 * the run has one) becomes `failed` with the error as its stop reason. Its attempt-log anchor is
 * left as the previous session wrote it (an append may have failed: `attempts.head.json` anchors
 * what was written). A failure to write it is ignored: the error that ended the
 * session is the one reported.
 */
export async function writeFailedStatus(session: RunSession, error: unknown): Promise<void> {
  const previous = session.run.previousStatus;
  if (previous === null) return;
  const status: RunStatus = {
    ...previous,
    state: 'failed',
    updatedAt: session.now().toISOString(),
    stop: { kind: 'error', message: (error as Error).message ?? String(error) },
  };
  await writeJsonFile(session.run.paths.status, status, { durable: true }).catch(() => {});
}
