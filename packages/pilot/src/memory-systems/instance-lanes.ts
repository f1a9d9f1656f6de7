import type { RunSession } from '../runner/run-session';
import { instanceScope, memoryPolicyOf } from './instance-identity';

/** A run's memory-instance lanes: each request's predecessor, and which requests end a lane. */
interface Lanes {
  /** For each plan ordinal, the previous ordinal of its memory instance, or -1. */
  readonly previous: Int32Array;
  /** 1 at the plan ordinal of each instance's last planned session. */
  readonly last: Uint8Array;
}

/** Per session: its lanes, or null when no system keeps its own memory. */
const lanesBySession = new WeakMap<RunSession, Lanes | null>();

/**
 * For each request of a `system`-policy system, the plan ordinal of the request before it in the
 * same memory instance (-1: the first, or a notebook-policy system); null when no system of the
 * run keeps its own memory (nothing to order).
 */
function instanceLanes(session: RunSession): Lanes | null {
  const known = lanesBySession.get(session);
  if (known !== undefined) return known;
  const { plan, systems } = session.run;
  let lanes: Lanes | null = null;
  if ([...systems.values()].some((system) => memoryPolicyOf(system) === 'system')) {
    lanes = {
      previous: new Int32Array(plan.requestCount).fill(-1),
      last: new Uint8Array(plan.requestCount),
    };
    const latest = new Map<string, number>();
    for (let ordinal = 0; ordinal < plan.requestCount; ordinal += 1) {
      const request = plan.requestAt(ordinal);
      const system = systems.get(request.systemId);
      if (system === undefined || memoryPolicyOf(system) !== 'system') continue;
      const key = `${request.systemId}|${instanceScope(request)}`;
      lanes.previous[ordinal] = latest.get(key) ?? -1;
      latest.set(key, ordinal);
    }
    for (const ordinal of latest.values()) lanes.last[ordinal] = 1;
  }
  lanesBySession.set(session, lanes);
  return lanes;
}

/**
 * Whether a request is the last planned session of its memory instance (a system under memory
 * policy `system`): after it resolves, nothing more is sent to that instance in this run.
 */
export function endsInstance(session: RunSession, ordinal: number): boolean {
  return instanceLanes(session)?.last[ordinal] === 1;
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
  const previous = lanes.previous[ordinal] as number;
  if (previous < 0) return false;
  const kind = session.outcomes.kindOf(previous);
  return kind === undefined || kind === 'pending';
}
