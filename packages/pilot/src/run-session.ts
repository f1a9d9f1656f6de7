import type { JsonlWriter } from '@chi/chis';
import type { ChatModel, FailureLogEntry } from '@chi/spec';
import type { ChainedAttemptWriter } from './attempt-chain-writer';
import type { PilotEventSink, PilotProgress } from './events';
import type { NotebookContent } from './notebook';
import type { RequestStore } from './request-store';
import type { ExecuteRunOptions } from './run-execute';
import type { HeldState } from './run-held-state';
import type { OpenedRun } from './run-open';
import type { OutcomeTable } from './run-outcomes';

/** Why a session stopped sending (interruption, account, ceiling, overcharge, manual). */
export interface StopReason {
  /** The kind of stop. */
  readonly kind: string;
  /** What happened. */
  readonly message: string;
}

/**
 * The state of one execution session, in one explicit object that each step reads and updates:
 * what the run folder holds, the open logs, each request's outcome so far, the notebooks, the
 * money and why the session stops. Every step of `executeRun` takes it as its first argument.
 */
export interface RunSession {
  /** The options `executeRun` was called with. */
  readonly options: ExecuteRunOptions;
  /** The run folder, read and checked. */
  readonly run: OpenedRun;
  /** Clock of every record. */
  readonly now: () => Date;
  /** Where events go. */
  readonly emit: PilotEventSink;
  /** `attempts.jsonl`, hash-chained. */
  readonly attemptWriter: ChainedAttemptWriter;
  /** `failures.jsonl`. */
  readonly failureWriter: JsonlWriter<FailureLogEntry>;
  /** The rendered requests. */
  readonly requestStore: RequestStore;
  /** Each request's outcome so far, by plan ordinal, packed (none: not reached yet). */
  readonly outcomes: OutcomeTable;
  /** Attempts logged so far per request, by plan ordinal (the next attempt's number). */
  readonly attemptsSoFar: Uint32Array;
  /** Notebook contents by `<systemId>|<notebook key>`. */
  readonly notebooks: Map<string, NotebookContent>;
  /** The instance models of `modelFor`, by `<systemId>|<blockId>` (made and replayed once). */
  readonly instanceModels: Map<string, Promise<ChatModel>>;
  /** The worlds and notebooks held only while a request without an outcome needs them. */
  readonly held: HeldState;
  /** USD charged over every resolved request, this session's and earlier ones'. */
  chargedUsd: number;
  /** Why the session stops sending; null while it goes on. */
  stop: StopReason | null;
  /** The first error of a request's bookkeeping (the session fails with it); null if none. */
  fatal: unknown;
}

/** Records a stop unless one is already recorded (the first reason wins). */
export function noteStop(session: RunSession, reason: StopReason): void {
  session.stop ??= reason;
}

/** The stop the budget ledger has recorded (it refuses new requests), or null. */
export async function ledgerStopReason(session: RunSession): Promise<StopReason | null> {
  const ledger = session.options.ledger;
  if (ledger === undefined) return null;
  const ledgerState = await ledger.state();
  return ledgerState.stopped === null
    ? null
    : { kind: ledgerState.stopped.kind, message: ledgerState.stopped.message };
}

/** The progress counts of the session (spend from the ledger when there is one). */
export async function sessionProgress(session: RunSession): Promise<PilotProgress> {
  const ledger = session.options.ledger;
  const committedUsd =
    ledger !== undefined ? (await ledger.state()).committedUsd : session.chargedUsd;
  const counts = session.outcomes.counts();
  return {
    total: session.run.plan.requestCount,
    done: counts.resolved,
    failures: counts.failed,
    notSent: counts.abandoned + counts.blocked + counts.notSent,
    committedUsd,
    ceilingUsd: session.run.manifest.ceilingUsd,
  };
}
