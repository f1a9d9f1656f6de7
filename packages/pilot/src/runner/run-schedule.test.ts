import type { RequestOutcome } from '@chi/run';
import type { ChatResult, PlannedRequest, RunPlan } from '@chi/spec';
import { isInfrastructureFailure } from '@chi/spec/internal';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { planOf, stubSession } from '../__fixtures__/plan-shape';
import { countPendingRequests, recordOutcome } from './run-held-state';
import { readiness, runSchedule } from './run-schedule';

/** The readiness rule as it read whole outcomes by request ID, before they were packed. */
function readinessOf(
  request: PlannedRequest,
  outcomes: ReadonlyMap<string, RequestOutcome>,
): 'ready' | 'wait' | { readonly blockedBy: string } {
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

function resultOf(failing: boolean): ChatResult {
  return {
    failure: failing ? 'http_retryable' : 'none',
    tries: [],
    chargedUsd: 0,
  } as unknown as ChatResult;
}

/** One step of a scheduling: a request sent or marked blocked. */
type Step = readonly ['send' | 'blocked', string];

/**
 * The scheduler as it was specified before its pending list kept empty slots: every settlement
 * rescans the whole pending list in plan order, dispatching ready requests while fewer than
 * `concurrency` are in flight and marking blocked ones, keeping the rest. `complete(inFlight)`
 * picks which request in flight settles next and whether it fails.
 */
function referenceSteps(
  plan: RunPlan,
  concurrency: number,
  complete: (inFlight: readonly string[]) => { readonly index: number; readonly failing: boolean },
): Step[] {
  const outcomes = new Map<string, RequestOutcome>();
  const steps: Step[] = [];
  let pending: readonly PlannedRequest[] = plan.requests;
  const running: string[] = [];
  for (;;) {
    const still: PlannedRequest[] = [];
    for (const request of pending) {
      const ready = readinessOf(request, outcomes);
      if (ready === 'wait' || running.length >= concurrency) {
        still.push(request);
        continue;
      }
      if (ready !== 'ready') {
        outcomes.set(request.requestId, { kind: 'blocked', by: ready.blockedBy });
        steps.push(['blocked', request.requestId]);
        continue;
      }
      running.push(request.requestId);
      steps.push(['send', request.requestId]);
    }
    pending = still;
    if (running.length === 0) return steps;
    const { index, failing } = complete(running);
    const [done] = running.splice(index % running.length, 1);
    outcomes.set(done as string, { kind: 'resolved', result: resultOf(failing) });
  }
}

/** The steps of `runSchedule` on the same plan and the same settlement choices. */
async function scheduleSteps(
  plan: RunPlan,
  concurrency: number,
  complete: (inFlight: readonly string[]) => { readonly index: number; readonly failing: boolean },
): Promise<Step[]> {
  const { index, session } = stubSession(plan, concurrency);
  countPendingRequests(session);
  const steps: Step[] = [];
  const idOf = (ordinal: number) => plan.requests[ordinal]?.requestId as string;
  const inFlight: { ordinal: number; settle: () => void }[] = [];
  const original = session.outcomes.set.bind(session.outcomes);
  session.outcomes.set = (ordinal, outcome, by) => {
    if (outcome.kind === 'blocked') {
      steps.push(['blocked', idOf(ordinal)]);
      // Blocked by the same request as the rule on whole outcomes says.
      expect(readiness(index, ordinal, session.outcomes)).toEqual({ blockedBy: by });
    }
    return original(ordinal, outcome, by);
  };
  const done = runSchedule(session, (ordinal) => {
    steps.push(['send', idOf(ordinal)]);
    return new Promise<void>((settle) => inFlight.push({ ordinal, settle }));
  });
  for (;;) {
    // Let every settled request's bookkeeping and the next dispatch run.
    for (let tick = 0; tick < 5; tick += 1) await Promise.resolve();
    if (inFlight.length === 0) break;
    const { index: pick, failing } = complete(inFlight.map((entry) => idOf(entry.ordinal)));
    const [next] = inFlight.splice(pick % inFlight.length, 1);
    recordOutcome(session, next?.ordinal as number, {
      kind: 'resolved',
      result: resultOf(failing),
    });
    next?.settle();
  }
  await done;
  return steps;
}

describe('runSchedule (property)', () => {
  it('sends and blocks exactly as rescanning the whole pending list after every settlement', async () => {
    const shape = fc.array(
      fc.record({ block: fc.nat(4), deps: fc.array(fc.nat(25), { maxLength: 3 }) }),
      { minLength: 1, maxLength: 25 },
    );
    const choices = fc.array(fc.record({ index: fc.nat(), failing: fc.boolean() }), {
      maxLength: 30,
    });
    await fc.assert(
      fc.asyncProperty(
        shape,
        fc.integer({ min: 1, max: 4 }),
        choices,
        async (entries, n, picks) => {
          const plan = planOf(entries);
          const chooser = () => {
            let step = 0;
            return () => picks[step++] ?? { index: 0, failing: false };
          };
          const expected = referenceSteps(plan, n, chooser());
          expect(await scheduleSteps(plan, n, chooser())).toEqual(expected);
          // Every request is sent or blocked once.
          expect(new Set(expected.map(([, id]) => id)).size).toBe(plan.requests.length);
          expect(isInfrastructureFailure(resultOf(true))).toBe(true);
        },
      ),
    );
  });
});
