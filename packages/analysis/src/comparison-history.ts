import type { AnalysisContext } from './analysis-context';
import {
  type ComparisonEstimand,
  type ComparisonQuantity,
  defineDifference,
  type EstimandCache,
  plainDifference,
} from './comparison-estimands';
import { historyIn } from './history-analysis';
import { type HistoryObservation, isHistoryObservation, observationsOf } from './run-scores';
import { worldsInEvery } from './world-sets';

const EXPERIMENT = 'history';

function hasHistory(context: AnalysisContext, systemId: string): boolean {
  return observationsOf(context.scores, EXPERIMENT, isHistoryObservation).some(
    (o) => o.systemId === systemId,
  );
}

/** Excess divergence D(A,B) − D(A,A2) at the compared checkpoint. */
function defineDivergence(
  context: AnalysisContext,
  cache: EstimandCache,
  [systemA, systemB]: [string, string],
  k: number,
): ComparisonEstimand[] {
  if (!hasHistory(context, systemA) || !hasHistory(context, systemB)) return [];
  const worlds = worldsInEvery([
    context.sets.distances(systemA, k),
    context.sets.distances(systemB, k),
  ]);
  const value = (systemId: string) =>
    cache.mean(`x|${systemId}|${k}`, worlds, (seed) => {
      const o = historyIn(context.world(seed), systemId) as HistoryObservation;
      const d = o.score.checkpoints[k]?.divergence;
      return (d?.differentHistories.value as number) - (d?.sameHistory.value as number);
    });
  const a = value(systemA);
  const b = value(systemB);
  const signs = { below: 0, zero: 0, above: 0 };
  return [
    {
      key: {
        systemA,
        systemB,
        quantity: 'excessDivergence',
        label: `excess divergence at checkpoint ${k}`,
        load: null,
        tau: null,
        checkpoint: k,
        indicator: null,
      },
      worlds,
      planned: context.blockCounts(EXPERIMENT, null).planned,
      a,
      b,
      difference: defineDifference(
        cache.registry,
        `c|d|x|${systemA}|${systemB}`,
        plainDifference(a, b),
        signs,
      ),
      signs,
    },
  ];
}

/** The history experiment's comparison: the excess divergence at the primary checkpoint. */
export const historyComparison: ComparisonQuantity = {
  experimentId: EXPERIMENT,
  define: (context, cache, pair, settings) =>
    defineDivergence(context, cache, pair, settings.primaryCheckpoint),
};
