/**
 * `@chi/scoring`: pure scoring for CHI/CHIS. Raw model replies and `@chi/spec` data in, plain data
 * out, with every numerator and denominator: probe replies to factors, Q_M, the capacity curves,
 * EIMC, CHI, history and behavioral metrics, and per-probe traces with a fixed failure taxonomy.
 * No I/O, no clock, no randomness.
 *
 * @packageDocumentation
 */
export {
  normalizeChoiceAnswer,
  normalizeExactAnswer,
  normalizeProbeSource,
  normalizeProbeValue,
} from './answer-normalization';
export { SCAN_ATTEMPT_COST_CHARS, scanBudgetChars } from './answer-set';
export type { BehavioralItemsAndKey, ScorableItem } from './behavior-judge';
export { scoreBehavior, traceBehaviorItems } from './behavior-score';
export {
  assertCalibrationIntact,
  type BuildCalibrationOptions,
  buildCalibration,
  calibrationContentSha256,
} from './build-calibration';
export {
  type CalibrationAxes,
  type CalibrationEstimate,
  estimateCalibrationAxes,
  type ZeroSpreadFeature,
} from './calibration-estimate';
export { capacityCurve, type LoadScores, meanWithinWorldCurve } from './capacity-curve';
export {
  AXIS_IDS,
  axisSimilarity,
  chi,
  EQUAL_AXIS_WEIGHTS,
  NO_CALIBRATION_REASON,
  WEIGHT_SUM_TOLERANCE,
} from './chi';
export { canonicalSha256 } from './content-hash';
export {
  continuity,
  decisionCoordinate,
  decisionDistance,
  decisionVector,
  experienceDivergence,
} from './decision-distance';
export type { RawReply } from './decode-reply';
export { DEFAULT_TAU, eimc, eimcFromScores, eimcSensitivity, SENSITIVITY_TAUS } from './eimc';
export { failureTaxonomy } from './failure-taxonomy';
export {
  type FeedbackValenceWorldScore,
  readValenceChoices,
  scoreFeedbackValenceWorld,
  type ValenceChoiceInput,
  type ValenceChoiceTrace,
  type ValenceCondition,
} from './feedback-valence-score';
export {
  GOAL_PERSISTENCE_FEATURES,
  type GoalAction,
  type GoalPersistenceWorldScore,
  type GoalStepTrace,
  type GoalTrialInput,
  readGoalStep,
  scoreGoalPersistenceWorld,
} from './goal-persistence-score';
export {
  CHECKPOINT_COUNT,
  CONTINUITY_PAIRS,
  type CorrectionInputs,
  checkpointAccuracy,
  correctionResponse,
  type HistoryObservations,
  type PerHistoryGrid,
  scoreHistory,
} from './history-score';
export { historyReason, traceHistoryDecisions } from './history-trace';
export { type HumanSample, type HumanSampleOptions, humanSampleFromRows } from './human-sample';
export { meanFactors } from './mean-factors';
export { scoreMemoryProbes } from './memory-score';
export { traceMemoryProbes } from './memory-trace';
export { parseProbeReply } from './probe-reply';
export { probePasses } from './probe-verdict';
export {
  ALPHA_SUM_TOLERANCE,
  checkAlphas,
  EQUAL_ALPHAS,
  qualityScore,
  qualityScoreOf,
} from './quality-score';
export { ratio } from './ratio';
export {
  compareByPrecedence,
  compareIsoTimes,
  indexRecords,
  type KeyPrecedence,
  precedenceFor,
  type RecordIndex,
} from './record-precedence';
export { asRecord, replyJson } from './reply-object';
export {
  PRIMARY_TRANSFORM,
  SIMILARITY_TRANSFORMS,
  type SimilarityTransform,
  similarityFromDistances,
} from './similarity-transform';
export { decisionOf, type OptionLabels, parseTaskReply } from './task-reply';
