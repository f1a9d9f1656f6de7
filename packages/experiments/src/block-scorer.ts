import type { ObservationBase, TraceLineBase } from '@chi/analysis';
import type { ExperimentAnalysis } from '@chi/analysis/internal';
import type { ExperimentScorer, ScorerBlocks } from '@chi/experiment';
import type { BuiltInRecords } from './built-in-experiment';

/**
 * What a hosting report gives the per-block scorers of the default run's experiments (the SPI's
 * `ScorerHost`, narrowed): the run's records as {@link BuiltInRecords} and the analysis hook of
 * `@chi/analysis`. The report's `ReportScorerHost` satisfies it.
 */
export interface BuiltInScorerHost {
  readonly records: BuiltInRecords;
  readonly analysis: ExperimentAnalysis<unknown>;
}

/** A built-in scorer with a typed per-block capability (memory, history, behavior). */
export type BlockScorer<Params, World, Observation, Trace> = Omit<
  ExperimentScorer<Params, BuiltInScorerHost>,
  'blocks'
> & {
  readonly blocks: ScorerBlocks<BuiltInRecords, World, Observation, Trace>;
};

/**
 * Defines a scorer with a per-block capability over {@link BuiltInRecords}, checked with its own
 * world, observation and trace types (the list that holds it sees them as unknown).
 */
export function defineBlockScorer<
  Params,
  World,
  Observation extends ObservationBase,
  Trace extends TraceLineBase,
>(
  scorer: BlockScorer<Params, World, Observation, Trace>,
): BlockScorer<Params, World, Observation, Trace> {
  return scorer;
}
