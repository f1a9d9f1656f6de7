import type { HistoryId } from '@chi/spec';
import type { MemoryCondition } from './chart-data';
import {
  type BehaviorObservation,
  type HistoryObservation,
  isBehaviorObservation,
  isHistoryObservation,
  isMemoryObservation,
  observationsOf,
  type RunScores,
} from './run-scores';
import { worldsInEvery, worldsWhere } from './world-sets';

/** A behavioral task indicator whose world mean the report shows. */
export type BehaviorIndicator = 'R' | 'C' | 'A' | 'I' | 'A-frame-change';

/**
 * The world set of every estimand the report shows (docs/protocol.md#world-sets), fixed before
 * resampling. Every list is ascending. An estimand that combines cells gets the worlds complete in
 * every cell it combines (and where its value is defined); a single-cell number its cell's own
 * complete worlds where the value is defined.
 */
export interface EstimandWorldSets {
  /** Worlds whose block of this memory cell is complete. */
  memoryCell(systemId: string, condition: MemoryCondition, load: number): readonly number[];
  /** A capacity curve, its EIMC and every number of its points: complete at every tested load. */
  curve(systemId: string, condition: MemoryCondition): readonly number[];
  /** The curve's worlds whose own Q_M is defined (the mean within-world Q_M). */
  withinWorld(systemId: string, condition: MemoryCondition, load: number): readonly number[];
  /** Worlds whose history block of this system is complete. */
  historyComplete(systemId: string): readonly number[];
  /** Accuracy and unknown rate of one history at one checkpoint (a single cell). */
  historyCheckpoint(systemId: string, history: HistoryId, checkpoint: number): readonly number[];
  /** D(A,B), D(A,A2) and the divergence of a checkpoint: A, B and A2 all fully valid there. */
  distances(systemId: string, checkpoint: number): readonly number[];
  /** Continuity 2 -> 3 of one history: valid vectors at both checkpoints. */
  continuity(systemId: string, history: HistoryId): readonly number[];
  /** Correction response 3 -> 4 of one history: defined (some environment changed). */
  correction(systemId: string, history: HistoryId): readonly number[];
  /** Worlds whose behavior block of this system is complete. */
  behaviorComplete(systemId: string): readonly number[];
  /** A task accuracy, or the frame-induced change (both halves give a valid matched pair). */
  behavior(systemId: string, indicator: BehaviorIndicator): readonly number[];
}

function memoize<A extends unknown[]>(
  compute: (...args: A) => readonly number[],
): (...args: A) => readonly number[] {
  const known = new Map<string, readonly number[]>();
  return (...args: A) => {
    const key = JSON.stringify(args);
    const hit = known.get(key);
    if (hit !== undefined) return hit;
    const value = compute(...args);
    known.set(key, value);
    return value;
  };
}

/**
 * Computes the world sets of a run's estimands from its scores (complete observations only).
 *
 * @example
 * ```ts
 * // world 3 incomplete at N = 128, world 2 at N = 256
 * estimandWorldSets(scores).curve('capacity-keeper', 'notebook'); // [1, 4]
 * ```
 */
export function estimandWorldSets(scores: RunScores): EstimandWorldSets {
  const memoryCell = memoize((systemId: string, condition: MemoryCondition, load: number) =>
    worldsWhere(
      observationsOf(scores, 'memory', isMemoryObservation),
      (o) =>
        o.blockComplete && o.systemId === systemId && o.condition === condition && o.load === load,
    ),
  );
  const curve = memoize((systemId: string, condition: MemoryCondition) => {
    const loads = [
      ...new Set(
        observationsOf(scores, 'memory', isMemoryObservation)
          .filter((o) => o.systemId === systemId && o.condition === condition)
          .map((o) => o.load),
      ),
    ];
    return worldsInEvery(loads.map((load) => memoryCell(systemId, condition, load)));
  });
  const withinWorld = memoize((systemId: string, condition: MemoryCondition, load: number) => {
    const worlds = new Set(curve(systemId, condition));
    return worldsWhere(
      observationsOf(scores, 'memory', isMemoryObservation),
      (o) =>
        o.blockComplete &&
        worlds.has(o.worldSeed) &&
        o.systemId === systemId &&
        o.condition === condition &&
        o.load === load &&
        o.score.qualityScore !== null,
    );
  });
  const history = (systemId: string, defined: (o: HistoryObservation) => boolean) =>
    worldsWhere(
      observationsOf(scores, 'history', isHistoryObservation),
      (o) => o.blockComplete && o.systemId === systemId && defined(o),
    );
  const behavior = (systemId: string, defined: (o: BehaviorObservation) => boolean) =>
    worldsWhere(
      observationsOf(scores, 'behavior', isBehaviorObservation),
      (o) => o.blockComplete && o.systemId === systemId && defined(o),
    );
  return {
    memoryCell,
    curve,
    withinWorld,
    historyComplete: memoize((systemId: string) => history(systemId, () => true)),
    historyCheckpoint: memoize((systemId: string, h: HistoryId, k: number) =>
      history(
        systemId,
        (o) => (o.score.checkpoints[k]?.histories[h].accuracy.accuracy.rate ?? null) !== null,
      ),
    ),
    distances: memoize((systemId: string, k: number) =>
      history(systemId, (o) => {
        const d = o.score.checkpoints[k]?.divergence;
        return (
          d !== undefined && d.differentHistories.value !== null && d.sameHistory.value !== null
        );
      }),
    ),
    continuity: memoize((systemId: string, h: HistoryId) =>
      history(systemId, (o) => o.score.continuity[h].primary.value !== null),
    ),
    correction: memoize((systemId: string, h: HistoryId) =>
      history(systemId, (o) => o.score.correctionResponse[h].value !== null),
    ),
    behaviorComplete: memoize((systemId: string) => behavior(systemId, () => true)),
    behavior: memoize((systemId: string, indicator: BehaviorIndicator) =>
      behavior(systemId, (o) =>
        indicator === 'A-frame-change'
          ? o.score.frameInducedChange.rate.rate !== null
          : o.score.axes[indicator].accuracy.rate !== null,
      ),
    ),
  };
}
