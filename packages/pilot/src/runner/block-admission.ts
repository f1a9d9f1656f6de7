import type { BudgetLedger } from '@chi/spec';
import type { RunSession, StopReason } from './run-session';

/**
 * The scheduler's block admission: a block (one world x one experiment unit of one system; one
 * divergence instance) starts only when the ledger's money left covers its whole remaining worst
 * case on top of the remaining worst case of every block already admitted. Blocks are admitted
 * one at a time, in plan order.
 *
 * How it composes with the transport's per-try reservation: the admission is not a ledger entry.
 * The transport still reserves each try's bound with the ledger before sending it. The admission
 * only decides whether a block may start, from one ledger snapshot:
 *
 * `committed + sum over admitted and candidate blocks of the worst case of their requests without
 * an outcome <= ceiling`
 *
 * where a request's worst case is every try it may make (`requestWorstCasesNanos`). `committed`
 * (settled + retained + open reservations) already holds what the admitted blocks' finished tries
 * cost and what their tries in flight reserved, and the requests in flight are still counted with
 * their whole worst case, so the check over-counts only what is in flight and never under-counts,
 * whatever settles between the snapshot and the check. Every try of an admitted block therefore
 * finds its reservation within the ceiling: a started block can always finish (unless a charge
 * above its reservation stops the ledger). A refused block waits while admitted requests are in
 * flight (their settlement frees the over-count and what they were charged below their bound);
 * when nothing is in flight and the block still does not fit, the session stops cleanly (stop
 * kind `ceiling`, also written to the ledger) saying how many blocks the ceiling allowed. A resume admits again from the
 * ledger's state and each block's remaining requests.
 */
export interface BlockAdmission {
  /** Each request's whole worst case in nano-USD, by plan ordinal. */
  readonly worstCaseNanos: Float64Array;
  /** The ledger whose state the admission reads. */
  readonly ledger: BudgetLedger;
  /** 1 for an admitted block, by block ordinal. */
  readonly admitted: Uint8Array;
  /** Admitted blocks that may still have requests without an outcome (the sum stays small). */
  readonly unfinished: Set<number>;
  /** A decision is being made (one at a time, in plan order). */
  deciding: boolean;
}

/** What a decision found: admitted, wait for requests in flight to settle, or stop. */
export type AdmissionDecision = 'admitted' | 'wait' | StopReason;

/** A {@link BlockAdmission} of a session (nothing admitted yet). */
export function createBlockAdmission(
  session: RunSession,
  ledger: BudgetLedger,
  worstCaseNanos: Float64Array,
): BlockAdmission {
  return {
    worstCaseNanos,
    ledger,
    admitted: new Uint8Array(session.run.plan.blockCount),
    unfinished: new Set(),
    deciding: false,
  };
}

/** The worst case, in nano-USD, of block `block`'s requests that have no final outcome yet. */
export function remainingWorstCaseNanos(
  session: RunSession,
  admission: BlockAdmission,
  block: number,
): number {
  let nanos = 0;
  for (const ordinal of session.run.plan.blockRequests(block)) {
    const kind = session.outcomes.kindOf(ordinal);
    if (kind === undefined || kind === 'pending')
      nanos += admission.worstCaseNanos[ordinal] as number;
  }
  return nanos;
}

function usd(nanos: number): string {
  return `${(nanos / 1e9).toFixed(6)} USD`;
}

/** Blocks every request of which has an outcome (the ones the ceiling allowed so far). */
function finishedBlocks(session: RunSession): number {
  const { outcomes } = session;
  const { plan } = session.run;
  let finished = 0;
  for (let block = 0; block < plan.blockCount; block += 1) {
    let done = true;
    for (const ordinal of plan.blockRequests(block)) {
      const kind = outcomes.kindOf(ordinal);
      if (kind === undefined || kind === 'pending') {
        done = false;
        break;
      }
    }
    if (done) finished += 1;
  }
  return finished;
}

/**
 * Decides whether block `block` may start now (see {@link BlockAdmission}); `inFlight` is the
 * number of requests the scheduler has in flight.
 */
export async function decideAdmission(
  session: RunSession,
  admission: BlockAdmission,
  block: number,
  inFlight: () => number,
): Promise<AdmissionDecision> {
  const state = await admission.ledger.state();
  const ceilingNanos = Math.round(state.ceilingUsd * 1e9);
  const committedNanos = Math.round(state.committedUsd * 1e9);
  let admittedNanos = 0;
  for (const other of admission.unfinished) {
    const remaining = remainingWorstCaseNanos(session, admission, other);
    if (remaining === 0) admission.unfinished.delete(other);
    admittedNanos += remaining;
  }
  const needNanos = remainingWorstCaseNanos(session, admission, block);
  if (committedNanos + admittedNanos + needNanos <= ceilingNanos) {
    admission.admitted[block] = 1;
    admission.unfinished.add(block);
    return 'admitted';
  }
  if (inFlight() > 0 || admittedNanos > 0) return 'wait';
  const { plan } = session.run;
  const stop: StopReason = {
    kind: 'ceiling',
    message: `block admission: the ceiling of ${usd(ceilingNanos)} allowed ${finishedBlocks(session)} of ${plan.blockCount} block(s); block ${plan.blockIdAt(block)} needs up to ${usd(needNanos)} (every remaining request with every retry) and ${usd(ceilingNanos - committedNanos)} is left, so it was not started (no money was reserved for a block that could not finish)`,
  };
  // The released ledger records the stop, as a refused reservation's stop would be.
  await admission.ledger.stop({ kind: 'ceiling', message: stop.message });
  return stop;
}
