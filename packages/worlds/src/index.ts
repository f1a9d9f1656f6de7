/**
 * `@chi/worlds`: seeded, pure generators of CHI/CHIS memory worlds, history worlds and
 * behavioral items, and the precedence functions that define memory truth.
 *
 * @packageDocumentation
 */
export { type AsOfBranch, asOfBranchCounts } from './as-of-branches';
export { type BehavioralItemsOptions, generateBehavioralItems } from './behavioral-items';
export { solveBehavioralItem } from './behavioral-solver';
export { blindView } from './blind-view';
export {
  type FeedbackValenceWorld,
  generateFeedbackValenceWorld,
  type Valence,
  type ValenceChoice,
  type ValenceTrial,
} from './feedback-valence-world';
export {
  type GoalCondition,
  type GoalPersistenceWorld,
  type GoalTrial,
  generateGoalPersistenceWorld,
} from './goal-persistence-world';
export { generateHistoryWorld, type HistoryWorldOptions } from './history-world';
export { generateMemoryWorld, type MemoryWorldOptions } from './memory-world';
export { indexRecords, type RecordIndex, type Resolution, resolveAsOf } from './precedence';
export { minimumMemoryLoad, PILOT_LOADS, V01_LOADS } from './presets';
export { deriveSeed, type SeedLabel } from './seed';
export { generatorInfo } from './version';
