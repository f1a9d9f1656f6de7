import { meanFactors, qualityScore } from '@chi/scoring';
import type {
  AxisId,
  BehavioralItemSet,
  BehaviorScore,
  QualityAlphas,
  QualityFactors,
} from '@chi/spec';
import { PILOT_FEATURES } from '@chi/spec/internal';
import {
  isBehaviorObservation,
  isHistoryObservation,
  isMemoryObservation,
  type MemoryObservation,
  observationsOf,
  type RunScores,
} from './run-scores';

/** Feature values of one system on one world: `<axis>.<feature>` -> value (absent if unmeasured). */
export type WorldFeatures = ReadonlyMap<string, number>;

/** One capacity measure of one system on one world, by test. */
export interface WorldCapacity {
  /** Behavior accuracy per `behavior.<axis>`. */
  readonly accuracy: ReadonlyMap<string, number>;
  /** Memory factors per `memory.notebook.n<load>`. */
  readonly memory: ReadonlyMap<string, QualityFactors>;
}

/** One world (cluster) of a run: every system's features and capacity there. */
export interface ProfileCluster {
  readonly seed: number;
  /** The cells a system's profile combines that are complete here: `behavior`, `memory` (min load). */
  readonly cells: ReadonlyMap<string, ReadonlySet<'behavior' | 'memory'>>;
  readonly features: ReadonlyMap<string, WorldFeatures>;
  readonly capacity: ReadonlyMap<string, WorldCapacity>;
}

/** The key of a feature: `<axis>.<feature>`. */
export const featureKey = (axis: AxisId, feature: string): string => `${axis}.${feature}`;

const BEHAVIOR_AXES = ['R', 'C', 'A', 'I'] as const;

function behaviorFeatures(score: BehaviorScore, out: Map<string, number>): void {
  for (const axis of BEHAVIOR_AXES) {
    const task = score.axes[axis];
    if (task.accuracy.rate !== null) out.set(featureKey(axis, 'accuracy'), task.accuracy.rate);
    if (task.accuracy.denominator > 0 && axis !== 'A')
      out.set(featureKey(axis, 'abstain_rate'), task.abstained / task.accuracy.denominator);
  }
  const change = score.frameInducedChange.rate.rate;
  if (change !== null) out.set(featureKey('A', 'frame_change_rate'), change);
}

/** Each system's smallest notebook load (where its memory features are read). */
function notebookMinLoads(memory: readonly MemoryObservation[]): Map<string, number> {
  const minLoad = new Map<string, number>();
  for (const o of memory)
    if (o.condition === 'notebook')
      minLoad.set(
        o.systemId,
        Math.min(o.load, minLoad.get(o.systemId) ?? Number.POSITIVE_INFINITY),
      );
  return minLoad;
}

/**
 * The worlds of a run with every system's pilot features (`pilot-features-v1`) and capacity
 * scores, from complete blocks only, in seed order: the clusters of the profile bootstrap (the
 * same worlds, in the same order, as the release's main analysis).
 */
export function profileClusters(scores: RunScores): ProfileCluster[] {
  // each list read once (the packed scores of scoreRun materialise a list on every read)
  const memory = observationsOf(scores, 'memory', isMemoryObservation);
  const history = observationsOf(scores, 'history', isHistoryObservation);
  const behavior = observationsOf(scores, 'behavior', isBehaviorObservation);
  const complete = [...memory, ...history, ...behavior].filter((o) => o.blockComplete);
  const seeds = [...new Set(complete.map((o) => o.worldSeed))].sort((a, b) => a - b);
  const minLoad = notebookMinLoads(memory);
  return seeds.map((seed) => {
    const features = new Map<string, Map<string, number>>();
    const capacity = new Map<
      string,
      { accuracy: Map<string, number>; memory: Map<string, QualityFactors> }
    >();
    const cells = new Map<string, Set<'behavior' | 'memory'>>();
    const mark = (systemId: string, cell: 'behavior' | 'memory') => {
      const set = cells.get(systemId) ?? new Set();
      set.add(cell);
      cells.set(systemId, set);
    };
    const of = (systemId: string) => {
      if (!features.has(systemId)) {
        features.set(systemId, new Map());
        capacity.set(systemId, { accuracy: new Map(), memory: new Map() });
      }
      return {
        f: features.get(systemId) as Map<string, number>,
        c: capacity.get(systemId) as {
          accuracy: Map<string, number>;
          memory: Map<string, QualityFactors>;
        },
      };
    };
    for (const o of behavior) {
      if (!o.blockComplete || o.worldSeed !== seed) continue;
      const { f, c } = of(o.systemId);
      mark(o.systemId, 'behavior');
      behaviorFeatures(o.score, f);
      for (const axis of BEHAVIOR_AXES) {
        const rate = o.score.axes[axis].accuracy.rate;
        if (rate !== null) c.accuracy.set(`behavior.${axis}`, rate);
      }
    }
    for (const o of memory) {
      if (!o.blockComplete || o.worldSeed !== seed || o.condition !== 'notebook') continue;
      const { f, c } = of(o.systemId);
      c.memory.set(`memory.notebook.n${o.load}`, o.score.factors);
      if (o.load === minLoad.get(o.systemId)) {
        mark(o.systemId, 'memory');
        f.set(featureKey('M', 'retrieval'), o.score.factors.r);
        f.set(featureKey('M', 'false_memory_rate'), 1 - o.score.factors.oneMinusF);
      }
    }
    return { seed, cells, features, capacity };
  });
}

/** Mean of `values`, or null for none. */
export function meanOrNull(values: readonly number[]): number | null {
  return values.length === 0 ? null : values.reduce((sum, v) => sum + v, 0) / values.length;
}

/**
 * A system's mean feature profile over a multiset of clusters (world means; a world that did not
 * measure a feature does not count for it), as an `AxisProfile` holding the measured features.
 */
export function meanProfile(
  clusters: readonly ProfileCluster[],
  systemId: string,
): { axes: Partial<Record<AxisId, Record<string, number>>> } {
  const axes: Partial<Record<AxisId, Record<string, number>>> = {};
  for (const { axis, feature } of PILOT_FEATURES) {
    const key = featureKey(axis, feature);
    const values: number[] = [];
    for (const cluster of clusters) {
      const value = cluster.features.get(systemId)?.get(key);
      if (value !== undefined) values.push(value);
    }
    const mean = meanOrNull(values);
    if (mean === null) continue;
    const axisFeatures = axes[axis] ?? {};
    axisFeatures[feature] = mean;
    axes[axis] = axisFeatures;
  }
  return { axes };
}

/** A system's capacity scores over a multiset of clusters, by test. */
export function meanCapacity(
  clusters: readonly ProfileCluster[],
  systemId: string,
  alphas: QualityAlphas,
): Map<
  string,
  { axis: AxisId; measure: 'accuracy' | 'Q_M'; value: number | null; worlds: number }
> {
  const out = new Map<
    string,
    { axis: AxisId; measure: 'accuracy' | 'Q_M'; value: number | null; worlds: number }
  >();
  const tests = new Set<string>();
  for (const cluster of clusters) {
    const capacity = cluster.capacity.get(systemId);
    for (const test of capacity?.accuracy.keys() ?? []) tests.add(test);
    for (const test of capacity?.memory.keys() ?? []) tests.add(test);
  }
  const order = (test: string): [number, number] =>
    test.startsWith('behavior.')
      ? [0, ['R', 'C', 'A', 'I'].indexOf(test.slice('behavior.'.length))]
      : [1, Number(test.slice('memory.notebook.n'.length))];
  const sorted = [...tests].sort((a, b) => {
    const [ka, va] = order(a);
    const [kb, vb] = order(b);
    return ka - kb || va - vb;
  });
  for (const test of sorted) {
    if (test.startsWith('behavior.')) {
      const values = clusters.flatMap((c) => {
        const v = c.capacity.get(systemId)?.accuracy.get(test);
        return v === undefined ? [] : [v];
      });
      out.set(test, {
        axis: test.slice('behavior.'.length) as AxisId,
        measure: 'accuracy',
        value: meanOrNull(values),
        worlds: values.length,
      });
    } else {
      const factors = clusters.flatMap((c) => {
        const v = c.capacity.get(systemId)?.memory.get(test);
        return v === undefined ? [] : [v];
      });
      out.set(test, {
        axis: 'M',
        measure: 'Q_M',
        value: factors.length === 0 ? null : qualityScore(meanFactors(factors), alphas),
        worlds: factors.length,
      });
    }
  }
  return out;
}

/**
 * Accuracy of a content-blind answer per behavior axis: the mean over the axis's items of
 * 1 / options for a choice item and 0 for an exact-answer item, from the first world's items
 * (every world registers the same item structure). Used by the imitation check.
 */
export function chanceAccuracy(
  behaviorItems: ReadonlyMap<number, BehavioralItemSet>,
): Partial<Record<AxisId, number>> {
  const first = [...behaviorItems.keys()].sort((a, b) => a - b)[0];
  const items = first === undefined ? [] : (behaviorItems.get(first)?.items ?? []);
  const out: Partial<Record<AxisId, number>> = {};
  for (const axis of BEHAVIOR_AXES) {
    const ofAxis = items.filter((item) => item.axis === axis);
    if (ofAxis.length === 0) continue;
    out[axis] =
      ofAxis.reduce((sum, item) => sum + (item.options === null ? 0 : 1 / item.options.length), 0) /
      ofAxis.length;
  }
  return out;
}

/**
 * The world set of a system's feature profile, and so of its h and CHI (docs/protocol.md,
 * world sets): CHI combines the behavior block and the memory block at the smallest load, so it
 * uses the worlds where every such cell the system has anywhere is complete. Ascending seeds.
 */
export function profileWorldSet(clusters: readonly ProfileCluster[], systemId: string): number[] {
  const required = new Set<'behavior' | 'memory'>();
  for (const cluster of clusters)
    for (const cell of cluster.cells.get(systemId) ?? []) required.add(cell);
  if (required.size === 0) return [];
  return clusters
    .filter((cluster) => [...required].every((cell) => cluster.cells.get(systemId)?.has(cell)))
    .map((cluster) => cluster.seed);
}
