import type { ChartData, ObservationBase, TraceLineBase } from '@chi/analysis';
import type { ExperimentAnalysis } from '@chi/analysis/internal';
import type {
  AnyExperimentScorer,
  ExperimentScorer,
  ScorerBlockInput,
  ScorerBlockResult,
  ScorerBlocks,
} from '@chi/experiment';
import type { BuiltInScorerHost } from '@chi/experiments/internal';
import type { PlannedBlock } from '@chi/spec';
import type { RunRecords } from '../run-folder';

/**
 * What `@chi/report` gives a scorer's optional capabilities (`ScorerHost` of `@chi/experiment`):
 * a per-block scorer looks its world up in the run's records, and an analysis hook registers
 * estimands on the run's one bootstrap and returns its part of `chart-data.json`. It extends the
 * built-in folders' host (`BuiltInScorerHost` of `@chi/experiments`), so the compiler checks that
 * `RunRecords` has everything their per-block scorers look up (`BuiltInRecords`).
 */
export interface ReportScorerHost extends BuiltInScorerHost {
  readonly records: RunRecords;
  readonly analysis: ExperimentAnalysis<unknown, Partial<ChartData>>;
}

/** An experiment scorer as the report runs it: its capabilities bound to the report's types. */
export type ReportScorer<Params = unknown> = ExperimentScorer<Params, ReportScorerHost>;

/** The input of a per-block scorer of the report. */
export type BlockScorerInput<World> = ScorerBlockInput<World>;

/** The result of a per-block scorer of the report. */
export type BlockScorerResult<Observation, Trace> = ScorerBlockResult<Observation, Trace>;

/**
 * The per-block capability over the report's run records with its own world, observation and
 * trace types (`ScorerBlocks` of `@chi/experiment`).
 */
export interface ReportScorerBlocks<World, Observation, Trace>
  extends ScorerBlocks<RunRecords, World, Observation, Trace> {}

/** A scorer of the report with a typed per-block capability (the pilot's three). */
export type ReportBlockScorer<Params, World, Observation, Trace> = Omit<
  ReportScorer<Params>,
  'blocks'
> & {
  readonly blocks: ReportScorerBlocks<World, Observation, Trace>;
};

/**
 * Defines a scorer with a per-block capability over the report's run records, checked with its
 * own world, observation and trace types (the list that holds it sees them as unknown).
 */
export function defineReportScorer<
  Params,
  World,
  Observation extends ObservationBase,
  Trace extends TraceLineBase,
>(
  scorer: ReportBlockScorer<Params, World, Observation, Trace>,
): ReportBlockScorer<Params, World, Observation, Trace> {
  return scorer;
}

/**
 * A scorer of any experiment as the report runs it. A scorer given from outside (`writeRelease`,
 * `verifyRelease`, `runPilot` `scorers`) is typed for the default host; its capabilities receive
 * the report's records and are read as the report's types, which is what the SPI promises
 * (`ScorerHost`).
 */
export function asReportScorer(scorer: AnyExperimentScorer): ReportScorer {
  return scorer as ReportScorer;
}

/**
 * The world a block is scored against, looked up in the run's files by `key` (a world seed, or
 * memory's seed and load), or an error naming the block and the missing `what` (`history world
 * w3`). The one lookup of every per-block scorer's `world`.
 */
export function blockWorld<Key, World>(
  files: { get(key: Key): World | undefined },
  key: Key,
  block: Pick<PlannedBlock, 'blockId'>,
  what: string,
): World {
  const world = files.get(key);
  if (world === undefined) throw new Error(`block ${block.blockId}: no ${what}`);
  return world;
}
