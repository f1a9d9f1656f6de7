import { type ChisEntry, InvalidArgumentError } from '@chi/spec';
import { type DynamicResult, usedRefs } from './dynamic-result';
import { describeEntry, type EntryRef, entryRef, orderTrajectory } from './trajectories';

/** Options of {@link memoryAccumulation}. */
export interface MemoryAccumulationOptions {
  /** The profile indicator that counts usable information, e.g. `retrievedKeys` or `accuracy`. */
  readonly feature: string;
  /** Only entries with these conditions (default: every entry of the trajectory). */
  readonly conditions?: readonly string[];
}

/** One point of the accumulation series. */
export interface AccumulationPoint {
  readonly entry: EntryRef;
  readonly eventCount: number;
  readonly value: number | null;
}

/** Memory accumulation (a slope per event), with the series and the raw change. */
export interface MemoryAccumulationResult extends DynamicResult {
  readonly feature: string;
  /** Last value minus first value. */
  readonly totalChange: number | null;
  /** Last event count minus first event count. */
  readonly eventSpan: number | null;
  readonly points: readonly AccumulationPoint[];
}

/**
 * Memory accumulation under a fixed panel: how a named profile indicator of usable information
 * changes with event count. The value is the ordinary least-squares slope of the indicator against
 * event count over the selected entries (change per event, using every point, not just the ends);
 * `totalChange` is last minus first.
 *
 * The caller guarantees a fixed panel (the same probe set and scoring at every entry): a slope
 * across different panels measures the panel change. Null with fewer than two entries, a single
 * distinct event count, or any entry lacking the feature or holding null for it.
 *
 * More is not automatically better: accumulating stale or wrong records raises a count indicator
 * while lowering accuracy. Read it beside task accuracy.
 *
 * @example
 * ```ts
 * memoryAccumulation(entries, { feature: 'retrievedKeys' }).value; // keys gained per event
 * ```
 */
export function memoryAccumulation(
  entries: readonly ChisEntry[],
  options: MemoryAccumulationOptions,
): MemoryAccumulationResult {
  const ordered = orderTrajectory(entries, 'entries');
  const feature = options?.feature;
  if (typeof feature !== 'string' || feature === '') {
    throw new InvalidArgumentError(
      'feature',
      `expected a profile feature name, found ${JSON.stringify(feature)}`,
    );
  }
  const conditions = options.conditions === undefined ? null : new Set(options.conditions);
  const selected = ordered.filter(
    (entry) => conditions === null || conditions.has(entry.condition),
  );
  const points: AccumulationPoint[] = selected.map((entry) => ({
    entry: entryRef(entry),
    eventCount: entry.eventCount,
    value: entry.profile[feature] ?? null,
  }));
  const base = {
    feature,
    totalChange: null,
    eventSpan: null,
    points,
    used: usedRefs(ordered, new Set(selected)),
  };
  if (selected.length < 2) {
    return { value: null, reason: `needs at least two entries, found ${selected.length}`, ...base };
  }
  const lacking = selected.find(
    (entry) => entry.profile[feature] === undefined || entry.profile[feature] === null,
  );
  if (lacking !== undefined) {
    const problem = Object.hasOwn(lacking.profile, feature)
      ? 'is null (undefined indicator)'
      : 'is missing';
    return {
      value: null,
      reason: `profile feature ${JSON.stringify(feature)} of ${describeEntry(lacking)} ${problem}`,
      ...base,
    };
  }
  const xs = selected.map((entry) => entry.eventCount);
  const ys = selected.map((entry) => entry.profile[feature]!);
  const n = xs.length;
  const meanX = xs.reduce((sum, x) => sum + x, 0) / n;
  const meanY = ys.reduce((sum, y) => sum + y, 0) / n;
  let sxx = 0;
  let sxy = 0;
  for (let i = 0; i < n; i++) {
    sxx += (xs[i]! - meanX) ** 2;
    sxy += (xs[i]! - meanX) * (ys[i]! - meanY);
  }
  const totalChange = ys[n - 1]! - ys[0]!;
  const eventSpan = xs[n - 1]! - xs[0]!;
  if (sxx === 0) {
    return {
      value: null,
      reason: `every selected entry has event count ${xs[0]}; a slope needs at least two`,
      ...base,
      totalChange,
      eventSpan,
    };
  }
  return { value: sxy / sxx, reason: null, ...base, totalChange, eventSpan };
}
