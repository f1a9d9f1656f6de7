/**
 * `@chi/spec`: the shared vocabulary of the CHI/CHIS toolkit. Every value that crosses a package
 * boundary has a zod schema here; the interfaces other packages implement (`ChatModel`,
 * `BudgetLedger`) and the error classes live here too.
 *
 * @packageDocumentation
 */
export {
  type BehavioralItem,
  type BehavioralItemSet,
  BehavioralItemSetSchema,
  type BehavioralKey,
} from './behavior';
export { type BehaviorScore, BehaviorScoreSchema } from './behavior-scores';
export type {
  BudgetLedger,
  LedgerEntry,
  LedgerState,
  ReserveOutcome,
  SettleOutcome,
} from './budget';
export {
  type HumanDataHeader,
  HumanDataHeaderSchema,
  type HumanDataRow,
  HumanDataRowSchema,
} from './calibration';
export type { CatalogModel, ModelCatalog } from './catalog';
export {
  type ChatInstance,
  type ChatMessage,
  ChatMessageSchema,
  type ChatModel,
  type ChatRequest,
  type ChatResult,
  ChatResultSchema,
  type FailureClass,
  INSTANCE_CONTROL_VERSION,
  type InstanceControl,
  type InstanceState,
} from './chat-model';
export {
  type AxisId,
  type AxisProfile,
  AxisProfileSchema,
  type ChiResult,
  ChiResultSchema,
  type FeatureCalibration,
  type HumanCalibration,
  HumanCalibrationSchema,
} from './chi';
export { type ChisEntry, ChisEntrySchema } from './chis';
export type { DivergenceManifest } from './divergence';
export {
  ApiCallError,
  BudgetExceededError,
  ChiError,
  InvalidArgumentError,
  RunFolderDamagedError,
  RunFolderLockedError,
  type RunFolderLockHolder,
  ValidationError,
  type ValidationIssue,
} from './errors';
export {
  type Decision,
  type HistoryId,
  type HistoryWorld,
  HistoryWorldSchema,
  type ValidAnswer,
} from './history';
export { type CheckpointAccuracy, type HistoryScore, HistoryScoreSchema } from './history-scores';
export { jsonSchemas } from './json-schemas';
export {
  type AnswerKeyEntry,
  type BlindMemoryWorld,
  type GeneratorInfo,
  type MemoryRecord,
  type MemoryWorld,
  MemoryWorldSchema,
  STRATA,
  type Stratum,
} from './memory';
export { type PilotConfig, PilotConfigSchema, type RunConfiguration } from './pilot-config';
export type { EvidenceClass } from './primitives';
export {
  type AttemptRecord,
  AttemptRecordSchema,
  type BlockStatus,
  type ExperimentKind,
  type PlannedBlock,
  type PlannedRequest,
  type Price,
  type RenderedRequest,
  type RequestIndexEntry,
  type RequestTask,
  type RunManifest,
  RunManifestSchema,
  type RunPlan,
  type RunShard,
  type RunStatus,
  type SmokeResult,
  type SystemSpec,
} from './run';
export {
  type CapacityCurve,
  CapacityCurveSchema,
  type EimcResult,
  EimcResultSchema,
  FACTOR_NAMES,
  type MemoryScore,
  MemoryScoreSchema,
  type ParsedProbeReply,
  type QualityAlphas,
  type QualityFactors,
} from './scores';
export {
  type RunStudyLink,
  RunStudyLinkSchema,
  type StudyCarriedInstances,
  StudyCarriedInstancesSchema,
  type StudyChisEntry,
  StudyChisEntrySchema,
  type StudyDeclaration,
  StudyDeclarationSchema,
  type StudyFile,
  StudyFileSchema,
  type StudyLiveSystem,
  StudyLiveSystemSchema,
  type StudySessionModel,
  type StudySessionRecord,
  StudySessionRecordSchema,
  type StudySessionSchedule,
  type StudyState,
  StudyStateSchema,
  type StudySystem,
  studySystemKey,
} from './study';
export type { ClassifiedTaskAnswer, ParsedTaskReply } from './task-replies';
export type {
  BehaviorItemTrace,
  FailureTaxonomy,
  HistoryItemTrace,
  MemoryProbeTrace,
} from './traces';
export { formatIssues, parseWith } from './validate';
export type { WithinWorldQualityCurve } from './within-world-curve';
