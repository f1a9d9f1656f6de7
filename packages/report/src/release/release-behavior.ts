import { isBehaviorObservation, observationsOf } from '@chi/analysis';
import type { ExperimentReleaseInput, ExperimentReleaseOutput } from './release-outputs';
import { rowsCsv } from './release-outputs';

const EXPERIMENT = 'behavior';

/** Per-world behavioral results as CSV: each axis's accuracy and the frame-induced change. */
function perWorldBehaviorCsv({ scores }: ExperimentReleaseInput): string {
  const rows = observationsOf(scores, EXPERIMENT, isBehaviorObservation).map((o) => ({
    systemId: o.systemId,
    worldSeed: o.worldSeed,
    blockComplete: o.blockComplete,
    R: o.score.axes.R.accuracy.rate,
    C: o.score.axes.C.accuracy.rate,
    A: o.score.axes.A.accuracy.rate,
    I: o.score.axes.I.accuracy.rate,
    frameInducedChangeRate: o.score.frameInducedChange.rate.rate,
    framePairsValid: o.score.frameInducedChange.rate.denominator,
  }));
  return rowsCsv(rows);
}

/** The behavioral experiment's release files: its observations and its per-world CSV. */
export const behaviorReleaseOutput: ExperimentReleaseOutput = {
  experimentId: EXPERIMENT,
  scoreFiles: (scores) => [
    ['scores/behavior.jsonl', observationsOf(scores, EXPERIMENT, isBehaviorObservation)],
  ],
  files: (input) => [['chart-data/per-world-behavior.csv', perWorldBehaviorCsv(input)]],
  profiles: true,
};
