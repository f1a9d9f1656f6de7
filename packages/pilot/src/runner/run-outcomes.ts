import type { RequestOutcome } from '@chi/run';
import type { BlockRequestState } from '@chi/run/internal';
import { infrastructureReason, isInfrastructureFailure } from '@chi/spec/internal';

/** The kind of each request's outcome, packed (0: none yet). */
const KINDS = ['none', 'resolved', 'abandoned', 'blocked', 'not_sent', 'pending'] as const;
type KindCode = number;
const NONE = 0;
const RESOLVED = 1;
const ABANDONED = 2;
const BLOCKED = 3;
const NOT_SENT = 4;

/** How a resolved request ended, packed. */
const FAILURE_NONE = 0;
const FAILURE_MODEL = 1;
const FAILURE_INFRASTRUCTURE = 2;

/** The counts the session's progress and status report, kept as outcomes are recorded. */
export interface OutcomeCounts {
  /** Resolved requests (with or without a failure). */
  readonly resolved: number;
  /** Resolved requests that failed, the model's or the infrastructure's failure. */
  readonly failed: number;
  readonly abandoned: number;
  readonly blocked: number;
  readonly notSent: number;
  readonly pending: number;
}

/**
 * Each request's outcome so far, by its ordinal in the plan, packed in typed arrays: what the
 * session reads of an outcome and nothing else, so it holds a few bytes a request instead of a
 * result object (the whole result stays in the attempt log). Per request: the kind, how a
 * resolved request failed (none, the model's, the infrastructure's with its reason line), the
 * USD it was charged, the request a blocked one waited on, and the reason a request was not
 * sent or abandoned (each distinct reason stored once). `run-outcomes.test.ts` checks that it
 * answers as the map of whole outcomes it replaces.
 */
export class OutcomeTable {
  private readonly kinds: Uint8Array;
  private readonly failures: Uint8Array;
  private readonly reasons: Uint16Array;
  private readonly blockedBy: Int32Array;
  private readonly charged: Float64Array;
  private readonly reasonTexts: string[] = [];
  private readonly reasonCodes = new Map<string, number>();
  private readonly tally = [0, 0, 0, 0, 0, 0];
  private failedCount = 0;

  /** A table for `size` requests, none with an outcome. */
  constructor(readonly size: number) {
    this.kinds = new Uint8Array(size);
    this.failures = new Uint8Array(size);
    this.reasons = new Uint16Array(size);
    this.blockedBy = new Int32Array(size).fill(-1);
    this.charged = new Float64Array(size);
  }

  private reasonCode(text: string): number {
    let code = this.reasonCodes.get(text);
    if (code === undefined) {
      code = this.reasonTexts.push(text) - 1;
      this.reasonCodes.set(text, code);
    }
    return code;
  }

  /** Whether request `ordinal` has an outcome. */
  has(ordinal: number): boolean {
    return this.kinds[ordinal] !== NONE;
  }

  /** The kind of request `ordinal`'s outcome, or undefined when it has none. */
  kindOf(ordinal: number): RequestOutcome['kind'] | undefined {
    const kind = this.kinds[ordinal] as KindCode;
    return kind === NONE ? undefined : KINDS[kind as 1 | 2 | 3 | 4 | 5];
  }

  /** Whether request `ordinal` resolved with an infrastructure failure. */
  failedForInfrastructure(ordinal: number): boolean {
    return this.kinds[ordinal] === RESOLVED && this.failures[ordinal] === FAILURE_INFRASTRUCTURE;
  }

  /** The USD request `ordinal` was charged (0 unless resolved). */
  chargedUsd(ordinal: number): number {
    return this.charged[ordinal] as number;
  }

  /** The ordinal of the request a blocked request `ordinal` waited on (-1 unless blocked). */
  blockedByOf(ordinal: number): number {
    return this.blockedBy[ordinal] as number;
  }

  /** The counts by kind. */
  counts(): OutcomeCounts {
    const tally = this.tally;
    return {
      resolved: tally[RESOLVED] as number,
      failed: this.failedCount,
      abandoned: tally[ABANDONED] as number,
      blocked: tally[BLOCKED] as number,
      notSent: tally[NOT_SENT] as number,
      pending: tally[5] as number,
    };
  }

  /** What a block's status reads of request `ordinal`'s outcome (none: pending). */
  blockState(ordinal: number): BlockRequestState {
    const reason = this.reasonTexts[this.reasons[ordinal] as number] as string;
    switch (this.kinds[ordinal]) {
      case RESOLVED: {
        const failure = this.failures[ordinal];
        if (failure === FAILURE_INFRASTRUCTURE)
          return { kind: 'resolved', failure: 'infrastructure', reason };
        return { kind: 'resolved', failure: failure === FAILURE_MODEL ? 'model' : 'none' };
      }
      case ABANDONED:
        return { kind: 'abandoned' };
      case BLOCKED:
        return { kind: 'blocked' };
      case NOT_SENT:
        return { kind: 'not_sent', reason };
      default:
        return { kind: 'pending' };
    }
  }

  /**
   * Records request `ordinal`'s outcome (replacing any); a blocked request's `by` is given as the
   * ordinal `blockedBy` of the request it waited on.
   */
  set(ordinal: number, outcome: RequestOutcome, blockedBy = -1): void {
    this.forget(ordinal);
    const kind = KINDS.indexOf(outcome.kind);
    this.kinds[ordinal] = kind;
    this.tally[kind] = (this.tally[kind] as number) + 1;
    if (outcome.kind === 'resolved') {
      const { result } = outcome;
      const infrastructure = isInfrastructureFailure(result);
      this.failures[ordinal] = infrastructure
        ? FAILURE_INFRASTRUCTURE
        : result.failure === 'none'
          ? FAILURE_NONE
          : FAILURE_MODEL;
      if (infrastructure) this.reasons[ordinal] = this.reasonCode(infrastructureReason(result));
      if (result.failure !== 'none') this.failedCount += 1;
      this.charged[ordinal] = result.chargedUsd;
    } else if (outcome.kind === 'abandoned' || outcome.kind === 'not_sent')
      this.reasons[ordinal] = this.reasonCode(outcome.reason);
    else if (outcome.kind === 'blocked') this.blockedBy[ordinal] = blockedBy;
  }

  private forget(ordinal: number): void {
    const kind = this.kinds[ordinal] as number;
    if (kind === NONE) return;
    this.tally[kind] = (this.tally[kind] as number) - 1;
    if (kind === RESOLVED && this.failures[ordinal] !== FAILURE_NONE) this.failedCount -= 1;
    this.failures[ordinal] = FAILURE_NONE;
    this.reasons[ordinal] = 0;
    this.blockedBy[ordinal] = -1;
    this.charged[ordinal] = 0;
  }
}
