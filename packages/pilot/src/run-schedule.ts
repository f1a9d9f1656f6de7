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

/** The scheduler's own state: requests not dispatched yet, and those in flight. */
interface Schedule {
  pending: readonly PlannedRequest[];
  readonly running: Set<string>;
  stopAnnounced: boolean;
}

/**
 * Dispatches what can run now, in plan order, up to `concurrency` in flight; marks requests
 * whose dependency failed as blocked. Keeps the rest pending.
 */
function dispatch(
  session: RunSession,
  schedule: Schedule,
  send: (request: PlannedRequest) => Promise<void>,
  onSettled: () => void,
): void {
  const still: PlannedRequest[] = [];
  for (const request of schedule.pending) {
    if (schedule.running.has(request.requestId)) continue;
    const ready = readiness(request, session.outcomes);
    if (
      ready === 'wait' ||
      schedule.running.size >= session.run.concurrency ||
      session.stop !== null
    ) {
      still.push(request);
      continue;
    }
    if (ready !== 'ready') {
      recordOutcome(session, request, { kind: 'blocked', by: ready.blockedBy });
      continue;
    }
    schedule.running.add(request.requestId);
    send(request)
      .catch((error: unknown) => {
        session.fatal ??= error;
      })
      .finally(() => {
        schedule.running.delete(request.requestId);
        onSettled();
      });
  }
  schedule.pending = still;
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
