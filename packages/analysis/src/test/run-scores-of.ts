import type { AnyExperimentScorer } from '@chi/experiment';
import type { BlockRow } from '../chart-data';
import type { ExperimentScores, ObservationBase, RunScores, TraceLineBase } from '../run-scores';

/** One experiment's part of {@link runScoresOf}: its lists as plain arrays, each optional. */
export interface ExperimentScoresInput {
  readonly observations?: readonly ObservationBase[];
  readonly traces?: readonly TraceLineBase[];
  readonly extras?: Readonly<Record<string, unknown>>;
  readonly worlds?: ExperimentScores['worlds'];
}

/** A scorer that only names its experiment (the scores of a test are made by hand). */
function namedScorer(experimentId: string): AnyExperimentScorer {
  return {
    specificationVersion: 'chi-scorer-v1',
    experimentId,
    title: experimentId,
    parametersOf: () => null,
    notes: [],
  };
}

/**
 * Run scores made by hand, keyed by experiment ID as `scoreRun` keys them (plain arrays, not
 * packed), for testing an analysis without scoring a run. Synthetic: no run produced them.
 *
 * @example
 * ```ts
 * const scores = runScoresOf({ behavior: { observations: [observation] } });
 * ```
 */
export function runScoresOf(
  experiments: Readonly<Record<string, ExperimentScoresInput>>,
  blocks: readonly BlockRow[] = [],
): RunScores {
  const modules = new Map<string, ExperimentScores>();
  for (const [experimentId, input] of Object.entries(experiments))
    modules.set(experimentId, {
      scorer: namedScorer(experimentId),
      observations: input.observations ?? [],
      traces: input.traces ?? [],
      worlds: input.worlds ?? null,
      extras: input.extras ?? {},
    });
  return { blocks, modules };
}

/**
 * `scores` with one experiment's lists replaced (its scorer, per-world scores and extras kept, an
 * absent list kept as it was): how a test sets an experiment's observations by hand.
 *
 * @example
 * ```ts
 * const incomplete = withExperimentScores(scores, 'history', { observations: [] });
 * ```
 */
export function withExperimentScores(
  scores: RunScores,
  experimentId: string,
  input: ExperimentScoresInput,
): RunScores {
  const prior = scores.modules.get(experimentId);
  const modules = new Map(scores.modules);
  modules.set(experimentId, {
    scorer: prior?.scorer ?? namedScorer(experimentId),
    observations: input.observations ?? prior?.observations ?? [],
    traces: input.traces ?? prior?.traces ?? [],
    worlds: input.worlds === undefined ? (prior?.worlds ?? null) : input.worlds,
    extras: input.extras ?? prior?.extras ?? {},
  });
  return { blocks: scores.blocks, modules };
}

/**
 * `scores` with every experiment's lists read once and held as arrays (the object path: what the
 * packed scores of `scoreRun` give, without packing), so each read returns the same array.
 */
export function heldAsArrays(scores: RunScores): RunScores {
  const modules = new Map(
    [...scores.modules].map(([id, experiment]) => [
      id,
      {
        scorer: experiment.scorer,
        observations: [...experiment.observations],
        traces: experiment.traces,
        worlds: experiment.worlds,
        extras: experiment.extras,
      },
    ]),
  );
  return { blocks: scores.blocks, modules };
}
