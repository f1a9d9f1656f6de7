import type { PlanIndex } from '@chi/run';
import { recordBlocked } from './run-held-state';
import type { OutcomeTable } from './run-outcomes';
import type { RunSession } from './run-session';

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
  const { pending, running } = schedule;
  for (let slot = schedule.first; slot < pending.length; slot += 1) {
    if (running.size >= session.run.concurrency || session.stop !== null) break;
    const ordinal = pending[slot] as number;
    if (ordinal < 0) continue;
    const ready = readiness(session.run.plan, ordinal, session.outcomes);
    if (ready === 'wait') continue;
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
        onSettled();
      });
  }
  while (schedule.first < pending.length && pending[schedule.first] === -1) schedule.first += 1;
}

/**
 * Sends every request the session has no outcome for, with bounded concurrency and in plan order
 * (so whole blocks, then whole worlds, finish first). Resolves when nothing is in flight and
 * nothing more can be sent: all done, a stop, or a fatal error. Requests in flight always run to
 * their result.
 */
export function runSchedule(
  session: RunSession,
  send: (ordinal: number) => Promise<void>,
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
  };
  return new Promise<void>((finish) => {
    const pump = (): void => {
      const stop = session.stop;
      if (stop !== null && !schedule.stopAnnounced) {
        schedule.stopAnnounced = true;
        session.emit({ type: 'budget-stop', kind: stop.kind, message: stop.message });
      }
      if (session.stop === null && session.fatal === null) dispatch(session, schedule, send, pump);
      if (schedule.running.size === 0) finish();
    };
    pump();
  });
}
