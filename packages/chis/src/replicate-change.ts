import { type ChisEntry, InvalidArgumentError } from '@chi/spec';
import type { DynamicResult } from './dynamic-result';
import { changeBetween } from './plasticity';
import { type ChisResponse, meanAbsoluteDifference } from './response-distance';
import { describeEntry, entryAtCheckpoint, entryRef, orderTrajectory } from './trajectories';

/** Options of {@link replicateChange}. */
export interface ReplicateChangeOptions {
  /** What is compared (default the decision vector). */
  readonly response?: ChisResponse;
  /** Checkpoint before the treatment both replicates received. */
  readonly before: number;
  /** Checkpoint after it. */
  readonly after: number;
}

/**
 * The noise floor of {@link plasticity}: two replicate trajectories that received the **same**
 * treatment between `before` and `after` (two instances under the same correction, or two under the
 * same matched control update). Per coordinate, the first's change (after - before) minus the
 * second's; the value is the mean absolute value of these differences, the quantity plasticity
 * computes between intervention and control. Plasticity's expected value when the intervention has
 * no effect beyond the control is the mean of the two treatments' floors; plasticity minus that
 * mean is its excess ("an intervention's effect relative to a control", seed
 * `000_b7bdc4d1fc1b710e.txt`, over what two runs of one treatment differ by).
 *
 * Null when either trajectory lacks a checkpoint, an entry lacks the response or has an invalid
 * coordinate.
 *
 * @throws InvalidArgumentError when the two are one trajectory, `before` is not before `after`, or
 * the responses have different lengths.
 *
 * @example
 * ```ts
 * replicateChange(corrected, correctedAgain, { before: 4, after: 5 }).value;
 * ```
 */
export function replicateChange(
  first: readonly ChisEntry[],
  second: readonly ChisEntry[],
  options: ReplicateChangeOptions,
): DynamicResult {
  const one = orderTrajectory(first, 'first');
  const two = orderTrajectory(second, 'second');
  if (one[0] !== undefined && one[0].trajectoryId === two[0]?.trajectoryId)
    throw new InvalidArgumentError(
      'second',
      `expected a replicate trajectory, found ${one[0].trajectoryId} twice`,
    );
  const { before, after } = options;
  if (!(before < after))
    throw new InvalidArgumentError(
      'before',
      `expected a checkpoint before 'after' (${after}), found ${before}`,
    );
  const response = options.response ?? 'decisionVector';
  const entries = [
    ['first', entryAtCheckpoint(one, before)],
    ['first', entryAtCheckpoint(one, after)],
    ['second', entryAtCheckpoint(two, before)],
    ['second', entryAtCheckpoint(two, after)],
  ] as const;
  const missing = entries.findIndex(([, entry]) => entry === undefined);
  if (missing !== -1)
    return {
      value: null,
      reason: `the ${entries[missing]?.[0]} trajectory has no entry at checkpoint ${missing % 2 === 0 ? before : after}`,
      used: [],
    };
  const [a0, a1, b0, b1] = entries.map(([, entry]) => entry as ChisEntry) as [
    ChisEntry,
    ChisEntry,
    ChisEntry,
    ChisEntry,
  ];
  const used = [a0, a1, b0, b1].map(entryRef);
  const firstChange = changeBetween(a0, a1, response);
  if (firstChange.reason !== null) return { value: null, reason: firstChange.reason, used };
  const secondChange = changeBetween(b0, b1, response);
  if (secondChange.reason !== null) return { value: null, reason: secondChange.reason, used };
  if (firstChange.change.length !== secondChange.change.length)
    throw new InvalidArgumentError(
      'second',
      `${describeEntry(a0)} has ${firstChange.change.length} coordinates but ${describeEntry(b0)} has ${secondChange.change.length}`,
    );
  const difference = meanAbsoluteDifference(firstChange.change, secondChange.change);
  return { value: difference.value, reason: difference.reason, used };
}
