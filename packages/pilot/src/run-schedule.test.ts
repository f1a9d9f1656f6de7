import { isInfrastructureFailure, type RequestOutcome } from '@chi/run';
import type { ChatResult, PlannedRequest, RunPlan } from '@chi/spec';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { planOf } from './__fixtures__/plan-shape';
import { countPendingRequests, emptyHeldState, recordOutcome } from './run-held-state';
import type { OpenedRun } from './run-open';
import { readiness, runSchedule } from './run-schedule';
import type { RunSession } from './run-session';

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
      const ready = readiness(request, outcomes);
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
  const run = {
    plan,
    concurrency,
    manifest: { worldSeeds: [], systems: [], experiments: { memory: null } },
  } as unknown as OpenedRun;
  const session = {
    run,
    outcomes: new Map(),
    notebooks: new Map(),
    instanceModels: new Map(),
    stop: null,
    fatal: null,
    emit: () => {},
    held: emptyHeldState(run, new Set()),
  } as unknown as RunSession;
  countPendingRequests(session);
  const steps: Step[] = [];
  const inFlight: { id: string; settle: () => void }[] = [];
  const original = session.outcomes.set.bind(session.outcomes);
  session.outcomes.set = (id: string, outcome: RequestOutcome) => {
    if (outcome.kind === 'blocked') steps.push(['blocked', id]);
    return original(id, outcome);
  };
  const done = runSchedule(session, (request) => {
    steps.push(['send', request.requestId]);
    return new Promise<void>((settle) => inFlight.push({ id: request.requestId, settle }));
  });
  for (;;) {
    // Let every settled request's bookkeeping and the next dispatch run.
    for (let tick = 0; tick < 5; tick += 1) await Promise.resolve();
    if (inFlight.length === 0) break;
    const { index, failing } = complete(inFlight.map((entry) => entry.id));
    const [next] = inFlight.splice(index % inFlight.length, 1);
    const request = plan.requests.find((entry) => entry.requestId === next?.id) as PlannedRequest;
    recordOutcome(session, request, { kind: 'resolved', result: resultOf(failing) });
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
