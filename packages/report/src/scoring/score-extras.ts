import type { ObservationBase, TraceLineBase } from '@chi/analysis';
import type { RunRecords } from '../run-folder/run-folder';

/**
 * What one experiment's scores carry beyond its observations and traces (`ExperimentScores.extras`
 * of `@chi/analysis`), gathered in the one scoring pass: a fold of its trace lines as they are
 * produced (a trace sink keeps none), and what it reads of the run when the blocks are scored.
 * `scoreRun` looks one up by the experiment ID of each scorer it feeds; it never names one.
 */
export interface ScoresExtension {
  /** The experiment whose scores it extends (its scorer's `experimentId`). */
  readonly experimentId: string;
  /** Starts gathering for one scoring of `records`. */
  start(records: RunRecords): ScoresExtensionRun;
}

/** One scoring's gathering of a {@link ScoresExtension}. */
export interface ScoresExtensionRun {
  /** Sees each trace line of the experiment as it is produced, in order. */
  trace(line: TraceLineBase): void;
  /**
   * The extras, once every block is scored; `observations` materialises the experiment's
   * observations (a new array each call).
   */
  finish(observations: () => readonly ObservationBase[]): Readonly<Record<string, unknown>>;
}
