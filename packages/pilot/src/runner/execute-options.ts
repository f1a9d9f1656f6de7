import type { BudgetLedger, ChatModel, ModelCatalog, SystemSpec } from '@chi/spec';
import type { PilotEventSink, PilotProgress } from '../events';
import type { AnyExperiment } from '../experiments/experiment';

// What `executeRun` takes and returns, on their own: every step of a session reads its options
// (`RunSession.options`), so the types live apart from run-execute.ts, which imports the steps.

/**
 * Makes the model of one instance: a system within one block (`instanceKey` is the block ID). A
 * scripted system may keep state inside the object (the divergence protocol's hidden-state
 * baseline); a live system's factory may return one shared transport.
 */
export type InstanceModelFactory = (system: SystemSpec, instanceKey: string) => ChatModel;

/** Options of {@link executeRun}. */
export interface ExecuteRunOptions {
  /** A run folder made by `createRun` (fresh, or interrupted: it is resumed). */
  readonly runDir: string;
  /** The model of every system of the manifest, by system ID (or `modelFor`: exactly one). */
  readonly models?: ReadonlyMap<string, ChatModel>;
  /**
   * Instance-scoped models instead of `models`: one model per system and block, so a scripted
   * instance keeps its own state; on resume a scripted instance first gets its resolved requests
   * replayed (nothing is sent or recorded).
   */
  readonly modelFor?: InstanceModelFactory;
  /**
   * The budget ledger the models reserve with, to report spend and notice a stop. With a ledger,
   * a block starts only when the ceiling covers its whole remaining worst case
   * (`BlockAdmission`).
   */
  readonly ledger?: BudgetLedger;
  /** Catalog prices the live transports reserve with (the block admission prices requests alike). */
  readonly catalog?: ModelCatalog;
  /** Requests in flight at once; the manifest's concurrency by default. */
  readonly concurrency?: number;
  readonly onEvent?: PilotEventSink;
  /** Aborting stops new requests; requests in flight run to their result (never cancelled). */
  readonly signal?: AbortSignal;
  readonly now?: () => Date;
  /**
   * The experiment modules that render the plan's requests (default: the pilot's registry). A
   * run with experiments added from outside the pilot needs them again on every resume.
   */
  readonly experiments?: readonly AnyExperiment[];
  /**
   * True when the caller already counted this session as a resume in `status.json` (`runPilot`
   * does, before its smoke checks): the session is announced as resumed and not counted again.
   */
  readonly resumeCounted?: boolean;
}

/** How an execution ended. */
export interface ExecuteOutcome {
  readonly runDir: string;
  readonly runId: string;
  readonly state: 'completed' | 'stopped' | 'failed';
  readonly stop: { readonly kind: string; readonly message: string } | null;
  readonly progress: PilotProgress;
  readonly elapsedMs: number;
  readonly completeBlocks: number;
  readonly incompleteBlocks: number;
}
