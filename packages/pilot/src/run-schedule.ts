import { isInfrastructureFailure, type RequestOutcome } from '@chi/run';
import type { PlannedRequest } from '@chi/spec';
import { recordOutcome } from './run-held-state';
import type { RunSession } from './run-session';

/** Whether a request can be sent now, must wait, or can never be sent (a dependency failed). */
export type Readiness = 'ready' | 'wait' | { readonly blockedBy: string };

/**
 * Dependencies: a request is ready once every request it needs resolved without an
 * infrastructure failure; it is blocked for good when one of them cannot produce a notebook.
 */
export function readiness(
  request: PlannedRequest,
  outcomes: ReadonlyMap<string, RequestOutcome>,
): Readiness {
  for (const dependency of request.dependsOn) {
    const outcome = outcomes.get(dependency);
    if (outcome === undefined || outcome.kind === 'pending') return 'wait';
    if (outcome.kind === 'resolved') {
      if (isInfrastructureFailure(outcome.result)) return { blockedBy: dependency };
      continue;
    }
    return { blockedBy: dependency };
  }
  return 'ready';
}

/**
 * The scheduler's own state: the requests not dispatched yet, in plan order (a dispatched or
 * blocked request's slot is emptied, never removed, so a dispatch does not copy the list), the
 * first slot that may still hold one, and the requests in flight.
 */
interface Schedule {
  readonly pending: (PlannedRequest | null)[];
  first: number;
  readonly running: Set<string>;
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
  send: (request: PlannedRequest) => Promise<void>,
  onSettled: () => void,
): void {
  const { pending, running } = schedule;
  for (let slot = schedule.first; slot < pending.length; slot += 1) {
    if (running.size >= session.run.concurrency || session.stop !== null) break;
    const request = pending[slot];
    if (request === null || request === undefined) continue;
    const ready = readiness(request, session.outcomes);
    if (ready === 'wait') continue;
    pending[slot] = null;
    if (ready !== 'ready') {
      recordOutcome(session, request, { kind: 'blocked', by: ready.blockedBy });
      continue;
    }
    running.add(request.requestId);
    send(request)
      .catch((error: unknown) => {
        session.fatal ??= error;
      })
      .finally(() => {
        running.delete(request.requestId);
        onSettled();
      });
  }
  while (schedule.first < pending.length && pending[schedule.first] === null) schedule.first += 1;
}

/**
 * Sends every request the session has no outcome for, with bounded concurrency and in plan order
 * (so whole blocks, then whole worlds, finish first). Resolves when nothing is in flight and
 * nothing more can be sent: all done, a stop, or a fatal error. Requests in flight always run to
 * their result.
 */
export function runSchedule(
  session: RunSession,
  send: (request: PlannedRequest) => Promise<void>,
): Promise<void> {
  const schedule: Schedule = {
    pending: session.run.plan.requests.filter(
      (request) => !session.outcomes.has(request.requestId),
    ),
    first: 0,
    running: new Set<string>(),
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
