import {
  type AnalysisContext,
  type ExperimentAnalysis,
  ratio,
  type WorldContribution,
  worldIndex,
} from './analysis-context';
import type { BootstrapResults, Estimand, WorldCounts } from './bootstrap-registry';
import type { BehaviorPoint } from './chart-data';
import type { ChartFilePart } from './chart-file-part';
import type { BehaviorIndicator } from './estimand-world-sets';
import { type BehaviorObservation, isBehaviorObservation, observationsOf } from './run-scores';

const BEHAVIOR_AXES = ['R', 'C', 'A', 'I'] as const;

/** One system's behavioral estimands: accuracy per axis and the frame-induced change rate. */
interface SystemBehaviorEstimands {
  readonly systemId: string;
  readonly axes: Readonly<Record<(typeof BEHAVIOR_AXES)[number], Estimand>>;
  readonly frameChange: Estimand;
}

/** The behavior experiment's estimands, one entry per system with behavioral observations. */
export type BehaviorEstimands = readonly SystemBehaviorEstimands[];

const behaviorCell = worldIndex<BehaviorObservation>((o) => o.systemId);

/** A world's complete behavior observation of one system. */
export function behaviorIn(
  world: WorldContribution,
  systemId: string,
): BehaviorObservation | undefined {
  return behaviorCell(world.observations(behaviorAnalysis.id), systemId);
}

/** The behavior experiment's part of the chart data. */
export interface BehaviorPart {
  readonly behavior: BehaviorPoint[];
}

/** Where the behavior part sits in `chart-data.json` (see `CHART_FILE_PARTS`). */
export const behaviorChartFile: ChartFilePart = {
  experimentId: 'behavior',
  fields: ['behavior'] satisfies (keyof BehaviorPart)[],
  empty: { behavior: [] } satisfies BehaviorPart,
};

function systemPoints(
  context: AnalysisContext,
  results: BootstrapResults,
  estimands: SystemBehaviorEstimands,
): BehaviorPoint[] {
  const { systemId } = estimands;
  const observations = observationsOf(context.scores, 'behavior', isBehaviorObservation).filter(
    (o) => o.blockComplete && o.systemId === systemId,
  );
  const counts = context.blockCounts('behavior', null);
  const worldCounts = (indicator: BehaviorIndicator): WorldCounts => ({
    used: context.sets.behavior(systemId, indicator).length,
    complete: context.sets.behaviorComplete(systemId).length,
    planned: counts.planned,
  });
  const points: BehaviorPoint[] = BEHAVIOR_AXES.map((axis) => {
    const axes = observations.map((o) => o.score.axes[axis]);
    return {
      systemId,
      indicator: axis,
      blocks: counts,
      value: results.interval(estimands.axes[axis], worldCounts(axis)),
      pooled: ratio(
        axes.reduce((s, a) => s + a.accuracy.numerator, 0),
        axes.reduce((s, a) => s + a.accuracy.denominator, 0),
      ),
      invalid: ratio(
        axes.reduce((s, a) => s + a.invalid + a.missing + a.duplicate, 0),
        axes.reduce((s, a) => s + a.accuracy.denominator, 0),
      ),
    };
  });
  const frames = observations.map((o) => o.score.frameInducedChange);
  points.push({
    systemId,
    indicator: 'A-frame-change',
    blocks: counts,
    value: results.interval(estimands.frameChange, worldCounts('A-frame-change')),
    pooled: ratio(
      frames.reduce((s, f) => s + f.rate.numerator, 0),
      frames.reduce((s, f) => s + f.rate.denominator, 0),
    ),
    invalid: ratio(
      frames.reduce((s, f) => s + f.pairs.filter((p) => p.changed === null).length, 0),
      frames.reduce((s, f) => s + f.pairs.length, 0),
    ),
  });
  return points;
}

/**
 * The behavior experiment's analysis: per system, accuracy on each axis (R, C, A, I) and the
 * frame-induced change rate, each as a mean over its world set with pooled and invalid rates.
 */
export const behaviorAnalysis: ExperimentAnalysis<BehaviorEstimands, BehaviorPart> = {
  id: 'behavior',
  estimands(context, registry) {
    const observations = observationsOf(context.scores, 'behavior', isBehaviorObservation);
    return context.systems
      .filter((id) => observations.some((o) => o.systemId === id))
      .map((systemId) => {
        const observation = (seed: number) =>
          behaviorIn(context.world(seed), systemId) as BehaviorObservation;
        const axes = Object.fromEntries(
          BEHAVIOR_AXES.map((axis) => [
            axis,
            registry.define(
              `b|${systemId}|${axis}`,
              registry.meanOf(
                new Set(context.sets.behavior(systemId, axis)),
                (seed) => observation(seed).score.axes[axis].accuracy.rate as number,
              ),
            ),
          ]),
        ) as SystemBehaviorEstimands['axes'];
        const frameChange = registry.define(
          `b|${systemId}|A-frame-change`,
          registry.meanOf(
            new Set(context.sets.behavior(systemId, 'A-frame-change')),
            (seed) => observation(seed).score.frameInducedChange.rate.rate as number,
          ),
        );
        return { systemId, axes, frameChange };
      });
  },
  results(context, estimands, results) {
    return { behavior: estimands.flatMap((system) => systemPoints(context, results, system)) };
  },
};
