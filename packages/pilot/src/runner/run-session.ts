import type { NotebookContent } from '@chi/experiments/internal';
import type { JsonlWriter } from '@chi/run';
import type { ChatModel, SystemSpec } from '@chi/spec';
import type { FailureLogEntry } from '@chi/spec/internal';
import type { PilotEventSink, PilotProgress } from '../events';
import { runCeilingUsd } from '../shard/shard-manifest';
import type { ChainedAttemptWriter } from './attempt-chain-writer';
import type { ExecuteRunOptions } from './execute-options';
import type { HeldState } from './held-state';
import type { OpenedRun } from './opened-run';
import type { RequestStore } from './request-store';
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
  /**
   * USD charged to systems that reserve nothing (an endpoint without a declared price, run under
   * `--accept-unbounded-spend`): in no ledger, so counted here, shown and held to the ceiling.
   */
  unreservedChargedUsd: number;
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

/** Whether a system reserves nothing before a request (no declared price: unbounded spend). */
export function reservesNothing(system: SystemSpec): boolean {
  return system.kind === 'openai-compatible' && system.safetyPrice === null;
}

/**
 * The spend to show and to hold to the ceiling: the ledger's committed USD plus what systems
 * that reserve nothing were charged (recorded from the provider's usage), or the charges alone
 * without a ledger.
 */
export async function recordedSpendUsd(session: RunSession): Promise<number> {
  const ledger = session.options.ledger;
  return ledger !== undefined
    ? (await ledger.state()).committedUsd + session.unreservedChargedUsd
    : session.chargedUsd;
}

/**
 * A stop once spend that could not be reserved has brought the recorded spend to the ceiling:
 * the ledger cannot refuse requests it never sees, so the session stops them itself.
 */
export async function unreservedCeilingStop(session: RunSession): Promise<StopReason | null> {
  if (session.unreservedChargedUsd <= 0) return null;
  const spentUsd = await recordedSpendUsd(session);
  const ceilingUsd = runCeilingUsd(session.run.manifest);
  return spentUsd >= ceilingUsd
    ? {
        kind: 'ceiling',
        message: `recorded charges of ${spentUsd.toFixed(4)} USD reached the ${ceilingUsd} USD ceiling (a system without a declared price reserves nothing; its reported cost is counted)`,
      }
    : null;
}

/** The progress counts of the session (spend from the ledger when there is one). */
export async function sessionProgress(session: RunSession): Promise<PilotProgress> {
  const committedUsd = await recordedSpendUsd(session);
  const counts = session.outcomes.counts();
  return {
    total: session.run.plan.requestCount,
    done: counts.resolved,
    failures: counts.failed,
    notSent: counts.abandoned + counts.blocked + counts.notSent,
    committedUsd,
    ceilingUsd: runCeilingUsd(session.run.manifest),
  };
}
