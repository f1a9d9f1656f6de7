import { createJsonlWriter } from '@chi/run';
import { foldAttemptRecord, type RequestLogState, streamRunJsonl } from '@chi/run/internal';
import { AttemptRecordSchema } from '@chi/spec';
import { FailureLogEntrySchema } from '@chi/spec/internal';
import { openRunLog } from '../run-folder/run-folder';
import { chainAttemptWriter } from './attempt-chain-writer';
import { createBlockAdmission } from './block-admission';
import type { ExecuteOutcome, ExecuteRunOptions } from './execute-options';
import type { OpenedRun } from './opened-run';
import { openRequestStore } from './request-store';
import { requestWorstCasesNanos } from './request-worst-case';
import {
  finishSession,
  logBlockedRequests,
  markNotSent,
  stopReasonOf,
  writeFailedStatus,
} from './run-finish';
import { countPendingRequests, emptyHeldState } from './run-held-state';
import { startingNotebooks } from './run-notebooks';
import { openRunForExecution } from './run-open';
import { OutcomeTable } from './run-outcomes';
import { runRequest } from './run-request';
import { resumeSession } from './run-resume';
import { runSchedule } from './run-schedule';
import {
  ledgerStopReason,
  noteStop,
  type RunSession,
  reservesNothing,
  unreservedCeilingStop,
} from './run-session';

export { mayResendUncertain } from './run-resume';

/** Opens the run's logs and request store and starts the session's state (nothing resolved yet). */
async function startSession(options: ExecuteRunOptions, run: OpenedRun): Promise<RunSession> {
  const { paths } = run;
  const attemptWriter = await chainAttemptWriter(
    await openRunLog(paths.attempts, () =>
      createJsonlWriter({ path: paths.attempts, schema: AttemptRecordSchema, fsync: 'every-line' }),
    ),
    run.chainStart,
    paths.attemptsHead,
  );
  const failureWriter = await openRunLog(paths.failures, () =>
    createJsonlWriter({ path: paths.failures, schema: FailureLogEntrySchema, fsync: 'every-line' }),
  );
  const requestStore = await openRequestStore(options.runDir);
  const notebooks = startingNotebooks(run);
  return {
    options,
    run,
    now: options.now ?? (() => new Date()),
    emit: options.onEvent ?? (() => {}),
    attemptWriter,
    failureWriter,
    requestStore,
    outcomes: new OutcomeTable(run.plan.requestCount),
    attemptsSoFar: new Uint32Array(run.plan.requestCount),
    notebooks,
    instanceModels: new Map(),
    held: emptyHeldState(run, new Set(notebooks.keys())),
    chargedUsd: 0,
    unreservedChargedUsd: 0,
    stop: null,
    fatal: null,
  };
}

/** The money already charged to the requests earlier sessions resolved (all, and unreserved). */
function resumedChargeUsd(session: RunSession): { all: number; unreserved: number } {
  const charged = { all: 0, unreserved: 0 };
  const { plan, systems } = session.run;
  for (let ordinal = 0; ordinal < plan.requestCount; ordinal += 1) {
    if (session.outcomes.kindOf(ordinal) !== 'resolved') continue;
    const usd = session.outcomes.chargedUsd(ordinal);
    charged.all += usd;
    const system = systems.get(plan.requestAt(ordinal).systemId);
    if (system !== undefined && reservesNothing(system)) charged.unreserved += usd;
  }
  return charged;
}

/**
 * The attempt log of earlier sessions folded as it streams from disk, record by record; a result
 * keeps its reply text only when its request writes a notebook (the one thing a resume reads a
 * reply for), so the fold never holds the run's replies.
 */
async function foldLogForResume(session: RunSession): Promise<Map<string, RequestLogState>> {
  const { plan } = session.run;
  const writers = new Set<string>();
  for (let ordinal = 0; ordinal < plan.requestCount; ordinal += 1)
    if (plan.writesNotebook(ordinal)) writers.add(plan.requestAt(ordinal).requestId);
  const states = new Map<string, RequestLogState>();
  for await (const record of streamRunJsonl(session.run.paths.attempts, AttemptRecordSchema))
    foldAttemptRecord(states, record, (result) =>
      writers.has(record.requestId) ? result : { ...result, text: null, redactedResponse: null },
    );
  return states;
}

/**
 * Takes over what earlier sessions' attempt log resolved (its fold is dropped on return), then
 * counts the requests left, for the release of held worlds and notebooks.
 */
async function resumeFromLog(session: RunSession): Promise<number> {
  const logStates = await foldLogForResume(session);
  const resumes = await resumeSession(session, logStates);
  countPendingRequests(session);
  return resumes;
}

/** Sends until done or stopped; an abort of `options.signal` stops new requests meanwhile. */
async function sendRequests(session: RunSession): Promise<void> {
  const signal = session.options.signal;
  const abortListener = () =>
    noteStop(session, {
      kind: 'interrupted',
      message: 'stopped on request (signal); requests in flight ran to their result',
    });
  signal?.addEventListener('abort', abortListener);
  if (signal?.aborted === true) abortListener();
  // The ledger's stop replaces an interruption noted just before: it is the reason that holds.
  const ledgerStop = await ledgerStopReason(session);
  if (ledgerStop !== null) session.stop = ledgerStop;
  const ledger = session.options.ledger;
  const admission =
    ledger === undefined
      ? null
      : createBlockAdmission(
          session,
          ledger,
          requestWorstCasesNanos(session.run, session.options.catalog),
        );
  await runSchedule(session, (ordinal) => runRequest(session, ordinal), admission);
  signal?.removeEventListener('abort', abortListener);
}

/**
 * Sends every registered request of a run that the attempt log does not already resolve, with
 * bounded concurrency, in plan order (so whole blocks, then whole worlds, finish first), and
 * records everything in the run folder: rendered requests, the attempt log (before sending and
 * after the result), notebooks, failures, block statuses and the run status.
 *
 * Resume rule: a request with `before_send` but no `after_response` was possibly sent. For a paid
 * system it is never sent again: an `abandoned` record is appended and its block is incomplete.
 * For a `scripted_baseline` system (free, deterministic) it is sent again as a new attempt.
 *
 * @example
 * ```ts
 * const run = await createRun({ settings: defaultOfflineSettings() });
 * const models = scriptedModelsFor(run.frozen.manifest);
 * const outcome = await executeRun({ runDir: run.runDir, models });
 * outcome.state; // 'completed'
 * ```
 */
export async function executeRun(options: ExecuteRunOptions): Promise<ExecuteOutcome> {
  const startedMs = Date.now();
  const run = await openRunForExecution(options);
  const session = await startSession(options, run);
  let outcome: ExecuteOutcome;
  try {
    const resumes = await resumeFromLog(session);
    const resumed = resumedChargeUsd(session);
    session.chargedUsd = resumed.all;
    session.unreservedChargedUsd = resumed.unreserved;
    // Spend recorded before, on systems that reserve nothing, may already be at the ceiling.
    const unreservedStop = await unreservedCeilingStop(session);
    if (unreservedStop !== null) session.stop = unreservedStop;
    await sendRequests(session);
    await logBlockedRequests(session);
    const stopReason = stopReasonOf(session);
    markNotSent(session, stopReason);
    await session.attemptWriter.close();
    await session.failureWriter.close();
    await session.requestStore.close();
    outcome = await finishSession(session, resumes, stopReason, startedMs);
  } catch (error) {
    // An error that escapes the session (a damaged file read mid-way, a full disk) never leaves
    // status.json saying "running": the session is recorded as failed, then the error goes on.
    await writeFailedStatus(session, error);
    throw error;
  }
  if (session.fatal !== null) throw session.fatal;
  return outcome;
}
