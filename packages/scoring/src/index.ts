/**
 * `@chi/scoring`: pure scoring for CHI/CHIS. Raw model replies and `@chi/spec` data in, plain data
 * out, with every numerator and denominator: probe replies to factors, Q_M, the capacity curves,
 * EIMC, CHI, history and behavioral metrics, and per-probe traces with a fixed failure taxonomy.
 * No I/O, no clock, no randomness.
 *
 * @packageDocumentation
 */
export type { BehavioralItemsAndKey, ScorableItem } from './behavior-judge';
export { scoreBehavior, traceBehaviorItems } from './behavior-score';
export { type BuildCalibrationOptions, buildCalibration } from './build-calibration';
export { capacityCurve, type LoadScores, meanWithinWorldCurve } from './capacity-curve';
export { AXIS_IDS, axisSimilarity, chi, EQUAL_AXIS_WEIGHTS, NO_CALIBRATION_REASON } from './chi';
export type { RawReply } from './decode-reply';
export { eimc, eimcFromScores, eimcSensitivity } from './eimc';
export { failureTaxonomy } from './failure-taxonomy';
export {
  type FeedbackValenceWorldScore,
  scoreFeedbackValenceWorld,
  type ValenceChoiceInput,
  type ValenceChoiceTrace,
  type ValenceCondition,
} from './feedback-valence-score';
export {
  type GoalAction,
  type GoalPersistenceWorldScore,
  type GoalStepTrace,
  type GoalTrialInput,
  scoreGoalPersistenceWorld,
} from './goal-persistence-score';
export {
  checkpointAccuracy,
  type HistoryObservations,
  type PerHistoryGrid,
  scoreHistory,
} from './history-score';
export { traceHistoryDecisions } from './history-trace';
export { meanFactors } from './mean-factors';
export { scoreMemoryProbes } from './memory-score';
export { traceMemoryProbes } from './memory-trace';
export { parseProbeReply } from './probe-reply';
export { EQUAL_ALPHAS, qualityScore } from './quality-score';
export type { RecordIndex } from './record-precedence';
export type { SimilarityTransform } from './similarity-transform';
export { parseTaskReply } from './task-reply';
