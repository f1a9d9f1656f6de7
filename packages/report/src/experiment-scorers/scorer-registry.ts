import type { AnyExperimentScorer } from '@chi/experiment';
import { BUILT_IN_EXPERIMENTS } from '@chi/experiments';
import { InvalidArgumentError } from '@chi/spec';
import type { ScoresExtension } from '../scoring/score-extras';
import { memoryScoresExtension } from './memory-extras';
import { asReportScorer, type ReportScorer } from './scorer-host';

/**
 * The toolkit's own experiment scorers, one per built-in experiment of `@chi/experiments`'
 * registry, in its order: memory (which also scores the `controls` blocks), history, behavior,
 * then the opt-in environments. `scoreRun`
 * feeds every scorer of the list it is given (this one by default) in one pass over the attempt
 * log; `writeRelease`, `runPilot` and `verifyRelease` take the same list, and an added experiment
 * (`x-...`) passes its scorer beside these: `[...BUILT_IN_SCORERS, myScorer]`.
 *
 * The order is the order the analyses' estimands join the run's one bootstrap (the order of the
 * replicates' statistic, which never changes; docs/architecture.md, "Scoring and analysis") and
 * the order of the module sections in the report.
 */
export const BUILT_IN_SCORERS: readonly AnyExperimentScorer[] = BUILT_IN_EXPERIMENTS.map(
  (builtIn) => builtIn.scorer,
);

/**
 * The scorers of a run as the report runs them, after checking that no experiment and no block
 * kind has two: an `InvalidArgumentError` on `scorers` naming it (exit 2).
 */
export function checkedScorers(scorers: readonly AnyExperimentScorer[]): readonly ReportScorer[] {
  const seen = new Set<string>();
  const blockKinds = new Set<string>();
  for (const scorer of scorers) {
    if (seen.has(scorer.experimentId))
      throw new InvalidArgumentError(
        'scorers',
        `two scorers score experiment ${scorer.experimentId}`,
      );
    seen.add(scorer.experimentId);
    for (const kind of scorer.blocks?.blockExperiments ?? []) {
      if (blockKinds.has(kind))
        throw new InvalidArgumentError('scorers', `two scorers score the ${kind} blocks`);
      blockKinds.add(kind);
    }
  }
  return scorers.map(asReportScorer);
}

/** The scorer (of `scorers`, default the built-in ones) whose per-block capability scores a block kind. */
export function scorerOfBlock(
  experiment: string,
  scorers: readonly AnyExperimentScorer[] = BUILT_IN_SCORERS,
): ReportScorer | undefined {
  const scorer = scorers.find((s) => s.blocks?.blockExperiments.includes(experiment) === true);
  return scorer === undefined ? undefined : asReportScorer(scorer);
}

/**
 * The toolkit's scores extensions by experiment ID (what `scoreRun` gathers beside a scorer's
 * observations and traces): memory's probe notebooks and failure taxonomy.
 */
export const BUILT_IN_SCORES_EXTENSIONS: ReadonlyMap<string, ScoresExtension> = new Map(
  [memoryScoresExtension].map((extension) => [extension.experimentId, extension]),
);
