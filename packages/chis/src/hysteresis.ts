import type { ChisEntry } from '@chi/spec';
import type { DynamicResult } from './dynamic-result';
import { type ChisResponse, responseDistance } from './response-distance';
import { compareEntries, entryAtCheckpoint, entryRef, orderTrajectory } from './trajectories';

/** Options of {@link hysteresis}. */
export interface HysteresisOptions {
  /** What is compared (default the decision vector). */
  readonly response?: ChisResponse;
  /** Where the two paths are compared (default the last checkpoint both trajectories have). */
  readonly checkpoint?: number;
}

/** Hysteresis, with the two paths that led to the compared checkpoint. */
export interface HysteresisResult extends DynamicResult {
  readonly checkpoint: number | null;
  /** The current condition shared by both trajectories at `checkpoint`. */
  readonly condition: string | null;
  /** Conditions of the entries before `checkpoint` on each trajectory, in order. */
  readonly pathA: readonly string[];
  readonly pathB: readonly string[];
}

/**
 * Hysteresis: the distance between responses under the **same current condition** reached through
 * **different paths**. Both trajectories are compared at one checkpoint where their conditions are
 * equal; the value is D between their responses there. Null when either lacks the checkpoint, the
 * current conditions differ (that would be a condition effect, not path dependence), or the paths
 * (sequences of earlier conditions) are identical (that is a same-history replicate distance).
 *
 * Hysteresis includes the noise floor: two replicates of one path also differ. Compare it with the
 * distance between same-path replicates before reading it as path dependence; and path dependence
 * is not damage by itself (a corrected system should answer differently from an uncorrected one).
 *
 * @example
 * ```ts
 * hysteresis(neutralOnly, interventionThenReversal).value; // D at their last shared checkpoint
 * ```
 */
export function hysteresis(
  pathA: readonly ChisEntry[],
  pathB: readonly ChisEntry[],
  options: HysteresisOptions = {},
): HysteresisResult {
  const first = orderTrajectory(pathA, 'pathA');
  const second = orderTrajectory(pathB, 'pathB');
  const response = options.response ?? 'decisionVector';
  const none = { checkpoint: null, condition: null, pathA: [], pathB: [], used: [] };
  let checkpoint = options.checkpoint;
  if (checkpoint === undefined) {
    const shared = new Set(second.map((entry) => entry.checkpoint));
    checkpoint = first.filter((entry) => shared.has(entry.checkpoint)).at(-1)?.checkpoint;
    if (checkpoint === undefined)
      return { value: null, reason: 'the two trajectories share no checkpoint', ...none };
  }
  const a = entryAtCheckpoint(first, checkpoint);
  const b = entryAtCheckpoint(second, checkpoint);
  if (a === undefined || b === undefined) {
    return {
      value: null,
      reason: `${a === undefined ? 'pathA' : 'pathB'} has no entry at checkpoint ${checkpoint}`,
      ...none,
      checkpoint,
    };
  }
  const pathBefore = (ordered: readonly ChisEntry[], at: ChisEntry) =>
    ordered.filter((entry) => compareEntries(entry, at) < 0).map((entry) => entry.condition);
  const details = {
    checkpoint,
    condition: a.condition === b.condition ? a.condition : null,
    pathA: pathBefore(first, a),
    pathB: pathBefore(second, b),
    used: [entryRef(a), entryRef(b)],
  };
  if (a.condition !== b.condition) {
    return {
      value: null,
      reason: `the current conditions differ at checkpoint ${checkpoint}: ${JSON.stringify(a.condition)} and ${JSON.stringify(b.condition)}`,
      ...details,
    };
  }
  if (
    details.pathA.length === details.pathB.length &&
    details.pathA.every((c, i) => c === details.pathB[i])
  ) {
    return {
      value: null,
      reason: `both trajectories reached checkpoint ${checkpoint} through the same conditions (${details.pathA.join(' > ') || 'none'})`,
      ...details,
    };
  }
  const distance = responseDistance(a, b, response);
  return { value: distance.value, reason: distance.reason, ...details };
}
