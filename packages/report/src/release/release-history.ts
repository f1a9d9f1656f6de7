import { chartPartOf, isHistoryObservation, observationsOf } from '@chi/analysis';
import { HISTORY_IDS } from '@chi/spec/internal';
import type { ExperimentReleaseInput, ExperimentReleaseOutput } from './release-outputs';
import { rowsCsv } from './release-outputs';

const EXPERIMENT = 'history';

/**
 * Per-world history results as CSV, one row per history and checkpoint, with whether each row
 * enters its distance's world set: averaging the rows marked `inDistanceWorldSet` recomputes the
 * published distance.
 */
function perWorldHistoryCsv({ scores, data }: ExperimentReleaseInput): string {
  const distanceWorlds = new Map(
    chartPartOf(data, EXPERIMENT).historyDistances.map((d) => [
      `${d.systemId}|${d.checkpoint}`,
      new Set(d.worldSeeds),
    ]),
  );
  const rows = observationsOf(scores, EXPERIMENT, isHistoryObservation).flatMap((o) =>
    o.score.checkpoints.flatMap((c) =>
      HISTORY_IDS.map((h) => ({
        systemId: o.systemId,
        worldSeed: o.worldSeed,
        blockComplete: o.blockComplete,
        history: h,
        checkpoint: c.checkpoint,
        inDistanceWorldSet:
          distanceWorlds.get(`${o.systemId}|${c.checkpoint}`)?.has(o.worldSeed) ?? false,
        accuracy: c.histories[h].accuracy.accuracy.rate,
        explicitUnknownRate: c.histories[h].accuracy.explicitUnknownRate.rate,
        invalidRate: c.histories[h].accuracy.invalidRate.rate,
        decisions: c.histories[h].decisions.join(' '),
        distanceAB: c.divergence.differentHistories.value,
        distanceAA2: c.divergence.sameHistory.value,
        divergence: c.divergence.value,
      })),
    ),
  );
  return rowsCsv(rows);
}

/** The history experiment's release files: its observations and its per-world CSV. */
export const historyReleaseOutput: ExperimentReleaseOutput = {
  experimentId: EXPERIMENT,
  scoreFiles: (scores) => [
    ['scores/history.jsonl', observationsOf(scores, EXPERIMENT, isHistoryObservation)],
  ],
  files: (input) => [['chart-data/per-world-history.csv', perWorldHistoryCsv(input)]],
};
