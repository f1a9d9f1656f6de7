import type { ChisEntry } from '@chi/spec';
import { type DynamicResult, usedRefs } from './dynamic-result';
import { describeSelector, type EntrySelector, selectEntry } from './entry-selector';
import { type ChisResponse, responseDistance } from './response-distance';
import { compareEntries, type EntryRef, entryRef, orderTrajectory } from './trajectories';

/** Options of {@link drift}. */
export interface DriftOptions {
  /** What is compared (default the decision vector). */
  readonly response?: ChisResponse;
  /** The baseline entry (default the first entry with condition `baseline`). */
  readonly baseline?: EntrySelector;
  /** The entry whose drift is the value (default the last entry of the trajectory). */
  readonly target?: EntrySelector;
}

/** One point of the drift series: distance from the baseline. */
export interface DriftPoint {
  readonly entry: EntryRef;
  readonly distance: number | null;
  readonly reason: string | null;
}

/** Drift from the baseline to the target, and the whole series after the baseline. */
export interface DriftResult extends DynamicResult {
  readonly baseline: EntryRef | null;
  readonly target: EntryRef | null;
  /** Events between baseline and target (target event count minus baseline event count). */
  readonly eventSpan: number | null;
  /** value / eventSpan: the mean drift per event, assuming it accrued linearly; null if span is 0. */
  readonly perEvent: number | null;
  /** Distance from the baseline of every entry after it, in trajectory order. */
  readonly series: readonly DriftPoint[];
}

/**
 * Drift: how far the response has moved from a baseline. The value is D(baseline, target), D the
 * mean absolute coordinate difference (unsigned: movement in any direction counts); `series` gives
 * D(baseline, entry) for every later entry, and `perEvent` divides by the event count elapsed.
 *
 * Drift is not error and not learning: movement towards a newly valid answer is drift too, and a
 * zero drift can mean a system that ignores its history. Read it beside task accuracy.
 *
 * @example
 * ```ts
 * drift(entries).value; // D(checkpoint 0, last checkpoint)
 * drift(entries, { target: { checkpoint: 3 } }).perEvent;
 * ```
 */
export function drift(entries: readonly ChisEntry[], options: DriftOptions = {}): DriftResult {
  const ordered = orderTrajectory(entries, 'entries');
  const response = options.response ?? 'decisionVector';
  const baselineSelector = options.baseline ?? { condition: 'baseline' };
  const baseline = selectEntry(ordered, baselineSelector, 'baseline');
  const empty = { baseline: null, target: null, eventSpan: null, perEvent: null, series: [] };
  if (baseline === undefined) {
    return {
      value: null,
      reason: `no baseline entry (${describeSelector(baselineSelector)})`,
      used: [],
      ...empty,
    };
  }
  const target =
    options.target === undefined ? ordered.at(-1)! : selectEntry(ordered, options.target, 'target');
  if (target === undefined) {
    return {
      value: null,
      reason: `no target entry (${describeSelector(options.target!)})`,
      used: [entryRef(baseline)],
      ...empty,
      baseline: entryRef(baseline),
    };
  }
  if (compareEntries(target, baseline) <= 0) {
    return {
      value: null,
      reason: `the target (checkpoint ${target.checkpoint}) does not come after the baseline (checkpoint ${baseline.checkpoint})`,
      used: usedRefs(ordered, new Set([baseline, target])),
      ...empty,
      baseline: entryRef(baseline),
      target: entryRef(target),
    };
  }
  const series: DriftPoint[] = ordered
    .filter((entry) => compareEntries(entry, baseline) > 0)
    .map((entry) => {
      const distance = responseDistance(baseline, entry, response);
      return { entry: entryRef(entry), distance: distance.value, reason: distance.reason };
    });
  const distance = responseDistance(baseline, target, response);
  const eventSpan = target.eventCount - baseline.eventCount;
  return {
    value: distance.value,
    reason: distance.reason,
    used: usedRefs(ordered, new Set([baseline, target])),
    baseline: entryRef(baseline),
    target: entryRef(target),
    eventSpan,
    perEvent: distance.value === null || eventSpan === 0 ? null : distance.value / eventSpan,
    series,
  };
}
