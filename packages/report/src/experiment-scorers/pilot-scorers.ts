import { behaviorScorer } from './behavior-scorer';
import type { AnyBlockScorer } from './block-scorer';
import { historyScorer } from './history-scorer';

/**
 * The pilot experiments scored through their block scorers, in the order their estimands join
 * the run's one bootstrap (after memory, which `scoreRun` and `analyzeRun` still score
 * themselves; docs/architecture.md, "Scoring and analysis").
 */
export const PILOT_BLOCK_SCORERS: readonly AnyBlockScorer[] = [historyScorer, behaviorScorer];

/** The block scorer of a block's experiment, or undefined when it has none. */
export function blockScorerOf(experiment: string): AnyBlockScorer | undefined {
  return PILOT_BLOCK_SCORERS.find((scorer) => scorer.experimentId === experiment);
}
