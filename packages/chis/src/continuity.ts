import type { ChisEntry } from '@chi/spec';
import { type DynamicResult, usedRefs } from './dynamic-result';
import { type ChisResponse, responseDistance } from './response-distance';
import { type EntryRef, entryRef, orderTrajectory } from './trajectories';

/** Options of {@link continuity}. */
export interface ContinuityOptions {
  /** What is compared (default the decision vector). */
  readonly response?: ChisResponse;
  /** Conditions that count as neutral (default `['neutral']`). */
  readonly neutralConditions?: readonly string[];
}

/** One pair of adjacent neutral checkpoints. */
export interface ContinuityPair {
  readonly from: EntryRef;
  readonly to: EntryRef;
  /** Distance D between the two responses, or null. */
  readonly distance: number | null;
  /** 1 - D, or null. */
  readonly continuity: number | null;
  readonly reason: string | null;
}

/** Continuity, with every pair it averaged. */
export interface ContinuityResult extends DynamicResult {
  readonly pairs: readonly ContinuityPair[];
}

/**
 * Continuity: what persists under neutral conditions. For every pair of **adjacent** entries that
 * are both neutral (nothing non-neutral between them), 1 - D with D the mean absolute coordinate
 * difference of their responses; the value is the mean over those pairs. In the pilot the pair is
 * checkpoints 2 and 3 (the two neutral maintenance invocations), so continuity = 1 - D(2, 3).
 *
 * Null when there is no such pair, or when any pair's distance is undefined (an invalid coordinate
 * makes the whole trajectory's continuity undefined rather than artificially high).
 *
 * Not a quality score: a system that never updates anything is perfectly continuous, and two
 * replicates of the same state differ by the noise floor, so 1 - D < 1 is not by itself change.
 *
 * @example
 * ```ts
 * continuity(trajectory.entries).value; // e.g. 0.875 = 1 - D(checkpoint 2, checkpoint 3)
 * ```
 */
export function continuity(
  entries: readonly ChisEntry[],
  options: ContinuityOptions = {},
): ContinuityResult {
  const ordered = orderTrajectory(entries, 'entries');
  const response = options.response ?? 'decisionVector';
  const neutral = new Set(options.neutralConditions ?? ['neutral']);
  const pairs: ContinuityPair[] = [];
  const usedEntries = new Set<ChisEntry>();
  for (let index = 1; index < ordered.length; index++) {
    const from = ordered[index - 1]!;
    const to = ordered[index]!;
    if (!neutral.has(from.condition) || !neutral.has(to.condition)) continue;
    const distance = responseDistance(from, to, response);
    pairs.push({
      from: entryRef(from),
      to: entryRef(to),
      distance: distance.value,
      continuity: distance.value === null ? null : 1 - distance.value,
      reason: distance.reason,
    });
    usedEntries.add(from).add(to);
  }
  const used = usedRefs(ordered, usedEntries);
  if (pairs.length === 0) {
    return {
      value: null,
      reason: `no two adjacent entries both have a neutral condition (${[...neutral].join(', ')})`,
      used,
      pairs,
    };
  }
  const undefinedPair = pairs.find((pair) => pair.distance === null);
  if (undefinedPair !== undefined) {
    return {
      value: null,
      reason: `distance between checkpoints ${undefinedPair.from.checkpoint} and ${undefinedPair.to.checkpoint} is undefined: ${undefinedPair.reason}`,
      used,
      pairs,
    };
  }
  const meanContinuity = pairs.reduce((sum, pair) => sum + pair.continuity!, 0) / pairs.length;
  return { value: meanContinuity, reason: null, used, pairs };
}
