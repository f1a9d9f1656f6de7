/**
 * `@chi/worlds`: seeded, pure generators of CHI/CHIS memory worlds, history worlds and
 * behavioral items, and the precedence functions that define memory truth.
 *
 * @packageDocumentation
 */
export { AS_OF_BRANCHES, type AsOfBranch, asOfBranchCounts } from './as-of-branches';
export { type BehavioralItemsOptions, generateBehavioralItems } from './behavioral-items';
export { solveBehavioralItem, solveFacts } from './behavioral-solver';
export { blindView } from './blind-view';
export { WORLD_EPOCH_ISO } from './event-time';
export {
  FEEDBACK_VALENCE_GENERATOR,
  type FeedbackValenceWorld,
  feedbackText,
  generateFeedbackValenceWorld,
  VALENCE_WRAPPERS,
  VALENCES,
  type Valence,
  type ValenceChoice,
  type ValenceTrial,
} from './feedback-valence-world';
export {
  CANCELLATION_TEXT,
  GOAL_CONDITIONS,
  GOAL_PERSISTENCE_GENERATOR,
  type GoalCondition,
  type GoalPersistenceWorld,
  type GoalTrial,
  generateGoalPersistenceWorld,
} from './goal-persistence-world';
export { generateHistoryWorld, type HistoryWorldOptions } from './history-world';
export { MEMORY_KEY_PATTERN } from './memory-keys';
export { generateMemoryWorld, type MemoryWorldOptions } from './memory-world';
export {
  indexRecords,
  type RecordIndex,
  type Resolution,
  resolveAsOf,
  resolveCurrent,
} from './precedence';
export {
  DEFAULT_PROBES_PER_STRATUM,
  MAX_MEMORY_LOAD,
  minimumMemoryLoad,
  PILOT_LOADS,
  V01_LOADS,
} from './presets';
export { deriveSeed, type SeedLabel, seedPath } from './seed';
export {
  PILOT_SYNTHETIC_HUMAN_MODEL,
  SYNTHETIC_HUMAN_DATA_HEADER,
  type SyntheticFeatureModel,
  type SyntheticHumanDataOptions,
  syntheticHumanData,
} from './synthetic-human-data';
export { GENERATOR_NAME, GENERATOR_VERSION, generatorInfo } from './version';
