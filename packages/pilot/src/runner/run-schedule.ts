import type { PlanIndex } from '@chi/run/internal';
import { waitsForInstance } from '../memory-systems/instance-lanes';
import { type BlockAdmission, decideAdmission } from './block-admission';
import { recordBlocked } from './run-held-state';
import type { OutcomeTable } from './run-outcomes';
import { noteStop, type RunSession } from './run-session';

/** Whether a request can be sent now, must wait, or can never be sent (a dependency failed). */
export type Readiness = 'ready' | 'wait' | { readonly blockedBy: number };

/**
 * Dependencies: a request (by plan ordinal) is ready once every request it needs resolved
 * without an infrastructure failure; it is blocked for good (by the ordinal of the first such
 * dependency) when one of them cannot produce a notebook.
 */
export function readiness(plan: PlanIndex, ordinal: number, outcomes: OutcomeTable): Readiness {
  for (const dependency of plan.dependsOn(ordinal)) {
    const kind = outcomes.kindOf(dependency);
    if (kind === undefined || kind === 'pending') return 'wait';
    if (kind === 'resolved' && !outcomes.failedForInfrastructure(dependency)) continue;
    return { blockedBy: dependency };
  }
  return 'ready';
}

/**
 * The scheduler's own state: the plan ordinals not dispatched yet, in plan order (a dispatched
 * or blocked request's slot is set to -1, never removed, so a dispatch does not copy the list),
 * the first slot that may still hold one, and the ordinals in flight.
 */
interface Schedule {
  readonly pending: Int32Array;
  first: number;
  readonly running: Set<number>;
  stopAnnounced: boolean;
  /** The block admission (a run with a ledger); null: every block may start. */
  readonly admission: BlockAdmission | null;
  /** The last decision was `wait`: none is asked again before a request in flight settles. */
  waitingForSettle: boolean;
  /** The pending requests' block ordinals never decrease (the plan lists blocks one by one). */
  readonly blocksInOrder: boolean;
}

/** Whether the ordinals' blocks never decrease along the list. */
function blocksNeverDecrease(plan: PlanIndex, ordinals: readonly number[]): boolean {
  let previous = -1;
  for (const ordinal of ordinals) {
    const block = plan.blockOf(ordinal);
    if (block < previous) return false;
    previous = block;
  }
  return true;
}

/**
 * Asks for block `block`'s admission (one decision at a time); pumps again when it is made. A
 * refusal that nothing in flight can change stops the session.
 */
function askAdmission(
  session: RunSession,
  schedule: Schedule,
  block: number,
  onDecided: () => void,
): void {
  const admission = schedule.admission as BlockAdmission;
  if (admission.deciding || schedule.waitingForSettle) return;
  admission.deciding = true;
  decideAdmission(session, admission, block, () => schedule.running.size)
    .then(
      (decision) => {
        if (decision === 'wait') schedule.waitingForSettle = true;
        else if (decision !== 'admitted') noteStop(session, decision);
      },
      (error: unknown) => {
        session.fatal ??= error;
      },
    )
    .finally(() => {
      admission.deciding = false;
      onDecided();
    });
}

/**
 * Dispatches what can run now, in plan order, up to `concurrency` in flight; marks requests
 * whose dependency failed as blocked. Keeps the rest pending. Stops looking once `concurrency`
 * requests are in flight or the session stops: nothing further could be dispatched or marked.
 */
function dispatch(
  session: RunSession,
  schedule: Schedule,
  send: (ordinal: number) => Promise<void>,
  onSettled: () => void,
): void {
  const { pending, running, admission } = schedule;
  let askedAdmission = false;
  for (let slot = schedule.first; slot < pending.length; slot += 1) {
    if (running.size >= session.run.concurrency || session.stop !== null) break;
    const ordinal = pending[slot] as number;
    if (ordinal < 0) continue;
    if (admission !== null) {
      const block = session.run.plan.blockOf(ordinal);
      if (admission.admitted[block] !== 1) {
        // Blocks are admitted in plan order: only the first one not admitted is asked for. When
        // the plan lists each block's requests together, every later slot belongs to a block not
        // admitted either, so the scan ends here (a pump stays O(concurrency), not O(plan)).
        if (!askedAdmission) askAdmission(session, schedule, block, onSettled);
        askedAdmission = true;
        if (schedule.blocksInOrder) break;
        continue;
      }
    }
    const ready = readiness(session.run.plan, ordinal, session.outcomes);
    if (ready === 'wait' || (ready === 'ready' && waitsForInstance(session, ordinal))) continue;
    pending[slot] = -1;
    if (ready !== 'ready') {
      recordBlocked(session, ordinal, ready.blockedBy);
      continue;
    }
    running.add(ordinal);
    send(ordinal)
      .catch((error: unknown) => {
        session.fatal ??= error;
      })
      .finally(() => {
        running.delete(ordinal);
        schedule.waitingForSettle = false;
        onSettled();
      });
  }
  while (schedule.first < pending.length && pending[schedule.first] === -1) schedule.first += 1;
}

/**
 * Sends every request the session has no outcome for, with bounded concurrency and in plan order
 * (so whole blocks, then whole worlds, finish first); with an `admission`, only requests of
 * admitted blocks (`BlockAdmission`: a block starts only when the ceiling covers its whole
 * remaining worst case), so concurrency stays within the admitted blocks. Resolves when nothing is in flight and
 * nothing more can be sent: all done, a stop, or a fatal error. Requests in flight always run to
 * their result.
 */
export function runSchedule(
  session: RunSession,
  send: (ordinal: number) => Promise<void>,
  admission: BlockAdmission | null = null,
): Promise<void> {
  const { outcomes } = session;
  const pending: number[] = [];
  for (let ordinal = 0; ordinal < session.run.plan.requestCount; ordinal += 1)
    if (!outcomes.has(ordinal)) pending.push(ordinal);
  const schedule: Schedule = {
    pending: Int32Array.from(pending),
    first: 0,
    running: new Set<number>(),
    stopAnnounced: false,
    admission,
    waitingForSettle: false,
    blocksInOrder: admission !== null && blocksNeverDecrease(session.run.plan, pending),
  };
  return new Promise<void>((finish) => {
    const pump = (): void => {
      const stop = session.stop;
      if (stop !== null && !schedule.stopAnnounced) {
        schedule.stopAnnounced = true;
        session.emit({ type: 'budget-stop', kind: stop.kind, message: stop.message });
      }
      if (session.stop === null && session.fatal === null) dispatch(session, schedule, send, pump);
      if (schedule.running.size === 0 && admission?.deciding !== true) finish();
    };
    pump();
  });
}
