/**
 * `@chi/spec/internal`: what the repository's own packages share with each other and their tests, but
 * users do not need. No stability promise: names here may change in any release. The public API is
 * `@chi/spec` (see its README and api/spec.api.txt).
 *
 * @packageDocumentation
 */
export {
  type BehavioralAxis,
  type BehavioralFacts,
  BehavioralKeySchema,
  type ConstrainedSelectionFacts,
  type CounterfactualOperatorFacts,
  type Frame,
  type FramedChoiceFacts,
  type InformationGapFacts,
  type SelectionConstraint,
  type SymbolRewriteFacts,
} from './behavior';
export type { AxisTaskScore, FramePair } from './behavior-scores';
export { LedgerEntrySchema, type StopReason } from './budget';
export {
  type CalibrationBuild,
  type CalibrationParticipant,
  type ChiComparison,
  ChiComparisonSchema,
  type NamedWeights,
  PILOT_FEATURE_SCHEMA,
  PILOT_FEATURES,
  SCALE_ESTIMATOR,
} from './calibration';
export { type CatalogEndpoint, ModelCatalogSchema } from './catalog';
export { INFRASTRUCTURE_FAILURES, type TryRecord, type Usage } from './chat-model';
export { AxisIdSchema } from './chi';
export {
  type DivergenceExperimentParams,
  DivergenceExperimentParamsSchema,
} from './divergence-params';
export {
  failureCategory,
  infrastructureReason,
  isAccountFailure,
  isInfrastructureFailure,
} from './failure-class';
export {
  HISTORY_IDS,
  type HistoryEnvironment,
  type HistoryEvidence,
  HistoryIdSchema,
  type HistoryStep,
  type Option,
} from './history';
export {
  type Continuity,
  ContinuitySchema,
  type CorrectionResponse,
  type DecisionDistance,
  type DecisionVector,
  type ExperienceDivergence,
  ExperienceDivergenceSchema,
  type HistoryContinuity,
} from './history-scores';
export {
  AnswerKeyEntrySchema,
  type Authority,
  BlindMemoryWorldSchema,
  type BlindProbe,
  MemoryRecordSchema,
  type RecordRole,
  StratumSchema,
} from './memory';
export {
  type DeclaredPrice,
  DeclaredPriceSchema,
  type PilotOptions,
  PilotOptionsSchema,
  RunConfigurationSchema,
} from './pilot-config';
export { EvidenceClassSchema, IsoTimeSchema, SeedSchema, Sha256Schema } from './primitives';
export {
  type BehaviorExperimentParams,
  BehaviorExperimentParamsSchema,
  BlockStatusSchema,
  ExperimentKindSchema,
  type FailureLogEntry,
  FailureLogEntrySchema,
  type FeedbackValenceParams,
  FeedbackValenceParamsSchema,
  type GoalPersistenceParams,
  GoalPersistenceParamsSchema,
  type HistoryExperimentParams,
  HistoryExperimentParamsSchema,
  type MemoryExperimentParams,
  MemoryExperimentParamsSchema,
  type NotebookSnapshot,
  NotebookSnapshotSchema,
  type NotebookSource,
  PlannedBlockSchema,
  PlannedRequestSchema,
  type PromptRef,
  plannedField,
  RenderedRequestSchema,
  RequestIndexEntrySchema,
  RunPlanSchema,
  RunShardSchema,
  RunStatusSchema,
  SmokeResultSchema,
} from './run';
export {
  type AnswerStatus,
  type ClassifiedAnswer,
  type EimcStatus,
  EimcStatusSchema,
  type LureBreakdown,
  ParsedProbeReplySchema,
  QualityAlphasSchema,
  type Ratio,
  RatioSchema,
} from './scores';
export { ClassifiedTaskAnswerSchema, ParsedTaskReplySchema } from './task-replies';
export {
  BEHAVIOR_TRACE_REASONS,
  BehaviorItemTraceSchema,
  type BehaviorTraceReason,
  FailureTaxonomySchema,
  HistoryItemTraceSchema,
  type HistoryTraceReason,
  MEMORY_TRACE_REASONS,
  MemoryProbeTraceSchema,
  type MemoryTraceReason,
  type TracedRecord,
} from './traces';
export { WithinWorldQualityCurveSchema } from './within-world-curve';
