import { type ChisEntry, InvalidArgumentError } from '@chi/spec';
import { type DynamicResult, usedRefs } from './dynamic-result';
import { type ChisResponse, responseDistance } from './response-distance';
import {
  compareEntries,
  type EntryRef,
  entryAtCheckpoint,
  entryRef,
  orderTrajectory,
} from './trajectories';

/** Options of {@link recovery}. */
export interface RecoveryOptions {
  /** What is compared (default the decision vector). */
  readonly response?: ChisResponse;
  /** The condition that marks the fault (default `fault`). */
  readonly faultCondition?: string;
  /** The post-fault checkpoint (default: the entry right after the fault entry). */
  readonly post?: number;
  /**
   * A fault deviation at or below this is treated as no deviation (default 0: only an exactly
   * unchanged response). Raise it to the noise floor to avoid dividing by noise.
   */
  readonly minDeviation?: number;
}

/** Recovery, with the deviations it is the ratio of. */
export interface RecoveryResult extends DynamicResult {
  readonly preFault: EntryRef | null;
  readonly fault: EntryRef | null;
  readonly postFault: EntryRef | null;
  /** D(pre-fault, fault): the deviation the fault caused. */
  readonly deviation: number | null;
  /** D(pre-fault, post-fault): the deviation left at the post-fault checkpoint. */
  readonly remainingDeviation: number | null;
}

/**
 * Recovery after a reversible fault: the fraction of the fault-induced deviation undone by the
 * post-fault checkpoint, `1 - D(pre, post) / D(pre, fault)` where `pre` is the entry just before
 * the first fault entry. 1 is a full return to the pre-fault response, 0 no recovery, negative a
 * response that moved further away after the fault was removed.
 *
 * Null when there is no fault entry, no entry before or after it, an undefined distance, or no
 * deviation (D(pre, fault) at or below `minDeviation`): with nothing displaced there is nothing to
 * recover from.
 *
 * Returning to the old response is not always good: after a valid correction or real learning,
 * full "recovery" to the pre-fault baseline would undo it. Drift between `pre` and `post` also
 * counts as not recovered.
 *
 * @example
 * ```ts
 * recovery(entries).value; // e.g. 0.75: three quarters of the displacement undone
 * ```
 */
export function recovery(
  entries: readonly ChisEntry[],
  options: RecoveryOptions = {},
): RecoveryResult {
  const ordered = orderTrajectory(entries, 'entries');
  const response = options.response ?? 'decisionVector';
  const faultCondition = options.faultCondition ?? 'fault';
  const minDeviation = options.minDeviation ?? 0;
  if (!Number.isFinite(minDeviation) || minDeviation < 0) {
    throw new InvalidArgumentError(
      'minDeviation',
      `expected a finite number >= 0, found ${minDeviation}`,
    );
  }
  const none = {
    preFault: null,
    fault: null,
    postFault: null,
    deviation: null,
    remainingDeviation: null,
    used: [],
  };
  const faultIndex = ordered.findIndex((entry) => entry.condition === faultCondition);
  if (faultIndex === -1) {
    return {
      value: null,
      reason: `no entry with condition ${JSON.stringify(faultCondition)}`,
      ...none,
    };
  }
  const fault = ordered[faultIndex]!;
  const pre = ordered[faultIndex - 1];
  if (pre === undefined) {
    return { value: null, reason: 'no entry before the fault', ...none, fault: entryRef(fault) };
  }
  const post =
    options.post === undefined ? ordered[faultIndex + 1] : entryAtCheckpoint(ordered, options.post);
  const located = { ...none, preFault: entryRef(pre), fault: entryRef(fault) };
  if (post === undefined) {
    return {
      value: null,
      reason:
        options.post === undefined
          ? 'no entry after the fault'
          : `no entry at checkpoint ${options.post}`,
      ...located,
      used: usedRefs(ordered, new Set([pre, fault])),
    };
  }
  if (compareEntries(post, fault) <= 0) {
    throw new InvalidArgumentError(
      'post',
      `expected a checkpoint after the fault (${fault.checkpoint}), found ${post.checkpoint}`,
    );
  }
  const deviation = responseDistance(pre, fault, response);
  const remaining = responseDistance(pre, post, response);
  const result = {
    ...located,
    postFault: entryRef(post),
    deviation: deviation.value,
    remainingDeviation: remaining.value,
    used: usedRefs(ordered, new Set([pre, fault, post])),
  };
  if (deviation.value === null) return { value: null, reason: deviation.reason, ...result };
  if (remaining.value === null) return { value: null, reason: remaining.reason, ...result };
  if (deviation.value <= minDeviation) {
    return {
      value: null,
      reason: `no deviation to recover from: D(pre-fault, fault) = ${deviation.value} <= ${minDeviation}`,
      ...result,
    };
  }
  return { value: 1 - remaining.value / deviation.value, reason: null, ...result };
}
