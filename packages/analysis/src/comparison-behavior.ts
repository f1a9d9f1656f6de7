import type { AnalysisContext } from './analysis-context';
import { behaviorIn } from './behavior-analysis';
import {
  type ComparisonEstimand,
  type ComparisonQuantity,
  defineDifference,
  type EstimandCache,
  plainDifference,
} from './comparison-estimands';
import type { BehaviorIndicator } from './estimand-world-sets';
import { type BehaviorObservation, isBehaviorObservation, observationsOf } from './run-scores';
import { worldsInEvery } from './world-sets';

const EXPERIMENT = 'behavior';

const BEHAVIOR_INDICATORS: readonly BehaviorIndicator[] = ['R', 'C', 'A', 'I', 'A-frame-change'];

function hasBehavior(context: AnalysisContext, systemId: string): boolean {
  return observationsOf(context.scores, EXPERIMENT, isBehaviorObservation).some(
    (o) => o.systemId === systemId,
  );
}

function behaviorValue(o: BehaviorObservation, indicator: BehaviorIndicator): number {
  return (
    indicator === 'A-frame-change'
      ? o.score.frameInducedChange.rate.rate
      : o.score.axes[indicator].accuracy.rate
  ) as number;
}

/** Each behavior indicator over the worlds where both systems define it. */
function defineBehavior(
  context: AnalysisContext,
  cache: EstimandCache,
  [systemA, systemB]: [string, string],
): ComparisonEstimand[] {
  if (!hasBehavior(context, systemA) || !hasBehavior(context, systemB)) return [];
  return BEHAVIOR_INDICATORS.map((indicator) => {
    const worlds = worldsInEvery([
      context.sets.behavior(systemA, indicator),
      context.sets.behavior(systemB, indicator),
    ]);
    const value = (systemId: string) =>
      cache.mean(`b|${systemId}|${indicator}`, worlds, (seed) =>
        behaviorValue(behaviorIn(context.world(seed), systemId) as BehaviorObservation, indicator),
      );
    const a = value(systemA);
    const b = value(systemB);
    const signs = { below: 0, zero: 0, above: 0 };
    return {
      key: {
        systemA,
        systemB,
        quantity: 'behavior',
        label: `behavior ${indicator}`,
        load: null,
        tau: null,
        checkpoint: null,
        indicator,
      },
      worlds,
      planned: context.blockCounts(EXPERIMENT, null).planned,
      a,
      b,
      difference: defineDifference(
        cache.registry,
        `c|d|b|${systemA}|${systemB}|${indicator}`,
        plainDifference(a, b),
        signs,
      ),
      signs,
    };
  });
}

/** The behavioral experiment's comparisons: each indicator. */
export const behaviorComparison: ComparisonQuantity = {
  experimentId: EXPERIMENT,
  define: (context, cache, pair) => defineBehavior(context, cache, pair),
};
