import type { ExperimentAnalysis } from '@chi/analysis/internal';
import type { AnyExperimentScorer, ExperimentScorer } from '@chi/experiment';
import type { BuiltInScorerHost } from '@chi/experiments/internal';
import type { RunRecords } from '../run-folder/run-folder';

/**
 * What `@chi/report` gives a scorer's optional capabilities (`ScorerHost` of `@chi/experiment`):
 * a per-block scorer looks its world up in the run's records, and an analysis hook registers
 * estimands on the run's one bootstrap and returns its part of the chart data (keyed by its
 * experiment ID; `chart-data.json` holds the parts `CHART_FILE_PARTS` registers). It extends the
 * built-in folders' host (`BuiltInScorerHost` of `@chi/experiments`), so the compiler checks that
 * `RunRecords` has everything their per-block scorers look up (`BuiltInRecords`).
 */
export interface ReportScorerHost extends BuiltInScorerHost {
  readonly records: RunRecords;
  readonly analysis: ExperimentAnalysis<unknown>;
}

/** An experiment scorer as the report runs it: its capabilities bound to the report's types. */
export type ReportScorer<Params = unknown> = ExperimentScorer<Params, ReportScorerHost>;

/**
 * A scorer of any experiment as the report runs it. A scorer given from outside (`writeRelease`,
 * `verifyRelease`, `runPilot` `scorers`) is typed for the default host; its capabilities receive
 * the report's records and are read as the report's types, which is what the SPI promises
 * (`ScorerHost`).
 */
export function asReportScorer(scorer: AnyExperimentScorer): ReportScorer {
  return scorer as ReportScorer;
}
