import type { RunSession } from '../run-session';
import { instanceScope, memoryPolicyOf } from './instance-identity';

/** Per session: for each plan ordinal, the previous ordinal of its memory instance, or -1. */
const lanesBySession = new WeakMap<RunSession, Int32Array | null>();

/**
 * For each request of a `system`-policy system, the plan ordinal of the request before it in the
 * same memory instance (-1: the first, or a notebook-policy system); null when no system of the
 * run keeps its own memory (nothing to order).
 */
function instanceLanes(session: RunSession): Int32Array | null {
  const known = lanesBySession.get(session);
  if (known !== undefined) return known;
  const { plan, systems } = session.run;
  let lanes: Int32Array | null = null;
  if ([...systems.values()].some((system) => memoryPolicyOf(system) === 'system')) {
    lanes = new Int32Array(plan.requestCount).fill(-1);
    const last = new Map<string, number>();
    for (let ordinal = 0; ordinal < plan.requestCount; ordinal += 1) {
      const request = plan.requestAt(ordinal);
      const system = systems.get(request.systemId);
      if (system === undefined || memoryPolicyOf(system) !== 'system') continue;
      const key = `${request.systemId}|${instanceScope(request)}`;
      lanes[ordinal] = last.get(key) ?? -1;
      last.set(key, ordinal);
    }
  }
  lanesBySession.set(session, lanes);
  return lanes;
}

/**
 * Whether a request must wait for the request before it in its memory instance: a system that
 * keeps its own memory sees each instance's sessions one at a time, in plan order (a history
 * probe at checkpoint k before the update to k + 1; a block's probes after its encode), whatever
 * the concurrency. The earlier session's outcome may be any (a failed or blocked one frees the
 * lane: its effect on the system's state, if any, is the system's).
 */
export function waitsForInstance(session: RunSession, ordinal: number): boolean {
  const lanes = instanceLanes(session);
  if (lanes === null) return false;
  const previous = lanes[ordinal] as number;
  if (previous < 0) return false;
  const kind = session.outcomes.kindOf(previous);
  return kind === undefined || kind === 'pending';
}
