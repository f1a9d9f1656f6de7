import { behaviorScorer } from './behavior-scorer';
import type { AnyBlockScorer } from './block-scorer';
import { historyScorer } from './history-scorer';
import { memoryScorer } from './memory-scorer';

/**
 * The pilot's experiments, scored through their block scorers, in the order their estimands
 * join the run's one bootstrap (the order of the replicates' statistic, which never changes;
 * docs/architecture.md, "Scoring and analysis").
 */
export const PILOT_BLOCK_SCORERS: readonly AnyBlockScorer[] = [
  memoryScorer,
  historyScorer,
  behaviorScorer,
];

/** The block scorer of a block's experiment, or undefined when it has none. */
export function blockScorerOf(experiment: string): AnyBlockScorer | undefined {
  return PILOT_BLOCK_SCORERS.find((scorer) => scorer.blockExperiments.includes(experiment));
}
