/**
 * `@chi/pilot`: the CHI/CHIS longitudinal model pilot runner. It owns the prompt templates, the
 * 6000-byte notebook, the run folder (see RUN-FOLDER.md), the scripted reference systems and the
 * `chi` CLI, and composes `@chi/worlds`, `@chi/scoring`, `@chi/chis`, `@chi/openrouter` and
 * `@chi/report`. Nothing here prints: progress flows out as typed {@link PilotEvent}s.
 *
 * @packageDocumentation
 */

export { matchTemplate, readBehaviorQuestion } from './behavior-question-reader';
export { behaviorQuestionSections, itemView, renderBehaviorQuestion } from './behavior-questions';
export { calibrateCommand, defaultCalibrationPath } from './calibrate-command';
export { chiComparisonFor, LEAVE_ONE_AXIS_OUT_WEIGHTS, PRIMARY_WEIGHTS } from './chi-comparison';
export { CHECKPOINT_CONDITIONS, chisEntriesFor, writeChisEntries } from './chis-entries';
export {
  type CliCommand,
  type HelpCommand,
  type ModelArgument,
  PILOT_EXPERIMENT_FLAGS,
  type PilotCommand,
  parseCli,
  type ScoreCommand,
  type ServeCommand,
  type SmokeCommand,
  USAGE,
  UsageError,
  type VerifyCommand,
} from './cli-args';
export { type CliIo, runCli } from './cli-main';
export {
  type LoadedPilotConfig,
  pilotConfigArgs,
  readPilotConfigFile,
  runConfigurationOf,
} from './config-file';
export {
  DeclaredPricesFileSchema,
  parsePriceArgument,
  perTokenPrice,
  readDeclaredPrices,
} from './declared-prices';
// The divergence protocol v0.1 (issue 19): `chi pilot --protocol divergence-v0.1`.
export {
  analyzeDivergence,
  DIVERGENCE_DYNAMICS,
  DIVERGENCE_SERIES,
  type DivergenceAnalysis,
  type DivergenceDynamic,
  type DivergenceEstimate,
  type DivergenceSeries,
  type DivergenceSystemResult,
  DYNAMIC_DEFINITIONS,
  divergenceIntervalMethod,
  type ExcludedInstance,
  SERIES_DEFINITIONS,
} from './divergence/analyze';
export {
  callRecordsOf,
  type DivergenceCallRecord,
  divergenceManifestOf,
  type IncompleteInstance,
  incompleteInstances,
  type NotebookOperation,
} from './divergence/calls';
export {
  DIVERGENCE_INTERVAL_METHOD,
  DIVERGENCE_INTERVAL_METHOD_LABELS,
  type DivergenceIntervalMethod,
  LEGACY_DIVERGENCE_INTERVAL_METHOD,
} from './divergence/interval-method';
export type { DivergenceManifest } from './divergence/manifest';
export {
  type ArmCall,
  type ArmOperation,
  armCalls,
  DIVERGENCE_ARMS,
  DIVERGENCE_CHECKPOINTS,
  DIVERGENCE_OPERATION_CHECKPOINTS,
  DIVERGENCE_PRIMARY_CHECKPOINT,
  DIVERGENCE_PROTOCOL_ID,
  type DivergenceArm,
  type DivergenceCheckpoint,
  type DivergencePhase,
  type ExposureOrder,
} from './divergence/protocol';
export { renderDivergenceRelease, writeDivergenceRelease } from './divergence/release';
export {
  createDivergenceRun,
  DIVERGENCE_REGISTRY,
  type DivergenceSelection,
  type DivergenceSessionOptions,
  type DivergenceSessionOutcome,
  divergenceModels,
  divergenceSettings,
  finishDivergenceRun,
  isDivergenceRunFolder,
  type RunDivergenceOptions,
  recomputeDivergence,
  runDivergenceProtocol,
  runDivergenceSession,
} from './divergence/run';
export { divergenceEntries } from './divergence/score';
export {
  createDivergenceInstanceModel,
  DIVERGENCE_SYSTEM_NAMES,
  DIVERGENCE_SYSTEMS,
  type DivergenceSystemName,
  type DivergenceSystemPolicy,
  scriptedDivergenceInstance,
} from './divergence/scripted-divergence';
export {
  type ServedScriptedModel,
  servedScriptedModels,
  withServedDeclarations,
} from './endpoint-models';
export type { PilotEvent, PilotEventSink, PilotProgress } from './events';
export {
  type ExperimentFlag,
  type ExperimentFlagValue,
  experimentFlagArgs,
  experimentFlags,
  parseExperimentFlags,
} from './experiment-flags';
export { behaviorExperiment } from './experiments/behavior';
export {
  checkExperimentContract,
  type ExperimentContractOptions,
  type ExperimentContractResult,
} from './experiments/contract';
export { DIVERGENCE_EXPERIMENT_ID, divergenceExperiment } from './experiments/divergence';
export {
  type AnyExperiment,
  defineExperiment,
  type Experiment,
  type ExperimentPromptTemplate,
  integerOption,
  type PlanContext,
  type PlannedUnit,
  type RenderContext,
} from './experiments/experiment';
export {
  feedbackValenceExperiment,
  renderValenceChoice,
  renderValenceFeedback,
  VALENCE_CHOICE_TEMPLATE,
  VALENCE_CHOICES,
  VALENCE_FEEDBACK_TEMPLATE,
} from './experiments/feedback-valence';
export {
  GOAL_STEP_TEMPLATE,
  GOAL_STEPS,
  goalPersistenceExperiment,
  renderGoalStep,
} from './experiments/goal-persistence';
export { historyExperiment, historyNotebookKey } from './experiments/history';
export { memoryExperiment, memoryNotebookKey } from './experiments/memory';
export {
  checkRegistry,
  experimentOf,
  OPT_IN_EXPERIMENT_IDS,
  OPT_IN_EXPERIMENTS,
  PILOT_EXPERIMENT_IDS,
  PILOT_EXPERIMENTS,
  REGISTERED_EXPERIMENTS,
  selectExperiments,
} from './experiments/registry';
export {
  calibrateHumanData,
  calibrationFileText,
  type HumanDataFile,
  parseHumanData,
  readCalibrationFile,
} from './human-data-file';
export { schemaReference, starterConfig, writeStarterConfig } from './init-config';
export {
  buildManifest,
  FAILURE_RULES,
  FEATURE_SCHEMAS,
  type FrozenManifest,
  freezeManifest,
  ManifestIntegrityError,
  planSha256,
  RUN_POLICIES,
  readFrozenManifest,
} from './manifest';
export {
  applyNotebookCap,
  emptyNotebook,
  NOTEBOOK_CAP_BYTES,
  type NotebookContent,
  toWellFormed,
  utf8ByteLength,
} from './notebook';
export {
  EXIT_CODES,
  finalResults,
  finishRun,
  type PilotOutcome,
  type RunPilotOptions,
  runPilot,
  SmokeCheckFailedError,
} from './pilot';
export { buildRunPlan, probeBatchCount, requestNonce, requestsPerSystem } from './plan';
export {
  formatPlanCost,
  planCost,
  type RunPlanCost,
  type SystemPlanCost,
  worstCaseNotes,
} from './plan-cost';
export {
  nonceStep,
  type PlannedRequestFields,
  plannedRequest,
} from './plan-request';
export { createProgressRenderer, formatProgress, type ProgressOutput } from './progress';
export {
  DEFAULT_PROMPTS_DIR,
  loadPromptTemplates,
  type PromptSet,
  type PromptTemplate,
  parsePromptTemplate,
  promptRefs,
  promptSections,
  renderTemplate,
  requireSection,
  requireTemplate,
} from './prompts';
export { type NotesLookup, notebookKey, renderPlannedRequest } from './render-planned';
export {
  type RenderedMessages,
  type RequestHeader,
  renderBehaviorHalf,
  renderHistoryProbe,
  renderHistoryUpdate,
  renderMemoryEncode,
  renderMemoryOracleProbe,
  renderMemoryProbe,
  renderSmoke,
} from './render-requests';
export { requestWorstCasesNanos } from './request-worst-case';
export { interruptedResumeHint } from './resume-hint';
export {
  type CreateRunOptions,
  createRun,
  DEFAULT_RUNS_ROOT,
  type PlannedRun,
  type PreparedRun,
  planRun,
  prepareRun,
  type RunHandle,
  runIdFor,
} from './run-create';
export {
  type ExecuteOutcome,
  type ExecuteRunOptions,
  executeRun,
  mayResendUncertain,
} from './run-execute';
export {
  prettyJson,
  type RunPaths,
  readJsonFile,
  runPaths,
  writeFileAtomic,
  writeJsonFile,
} from './run-folder';
export { formatHeadline, formatResumeHint } from './run-summary';
export {
  generateRunWorlds,
  generateSeedWorlds,
  memoryLoadsOf,
  memoryWorldKey,
  type RunWorldMaps,
  type RunWorlds,
  readRunWorlds,
  worldSeedsFor,
  writeGeneratedWorlds,
  writeRunWorlds,
} from './run-worlds';
export {
  answerBehavioralItems,
  type ScriptedBehaviorPolicy,
  type ScriptedItem,
  solveItem,
} from './scripted-behavior';
export {
  answerHistoryQuestions,
  HISTORY_NOTES_HEADER,
  type ScriptedChoice,
  type ScriptedEvidence,
  type ScriptedHistoryPolicy,
  updateHistoryNotes,
} from './scripted-history';
export {
  createImitatorModel,
  IMITATOR_NOTES,
  IMITATOR_SYSTEM_NAME,
  type ImitatorTargets,
  imitateBehavioralItems,
  imitateMemoryAnswers,
  imitatorDescription,
  imitatorItemKind,
  imitatorReply,
  imitatorSystemSpec,
  imitatorTargets,
  imitatorTargetsFromDeclared,
  isImitatorSystem,
} from './scripted-imitator';
export {
  answerMemoryQuestions,
  MEMORY_NOTES_HEADER,
  rankRecords,
  readMemoryNotes,
  resolveScripted,
  type ScriptedAnswer,
  type ScriptedMemoryPolicy,
  type ScriptedPrecedence,
  type ScriptedQuestion,
  type ScriptedRecord,
  writeMemoryNotes,
} from './scripted-memory';
export {
  createInstanceNoise,
  createScriptedNoise,
  type ScriptedNoise,
  type ScriptedNoiseSource,
} from './scripted-noise';
export {
  SCRIPTED_OPT_IN_POLICIES,
  type ScriptedGoalPolicy,
  type ScriptedValencePolicy,
  scriptedGoalStep,
  scriptedOptInReply,
  scriptedValenceChoices,
  scriptedValenceNotes,
} from './scripted-opt-in';
export {
  createScriptedModel,
  DEFAULT_SCRIPTED_SEED,
  declaredNoise,
  EXTRA_SCRIPTED_SYSTEM_NAMES,
  SCRIPTED_SYSTEM_NAMES,
  SCRIPTED_SYSTEMS,
  type ScriptedModelOptions,
  type ScriptedSystemDefinition,
  type ScriptedSystemName,
  scriptedChatModel,
  scriptedDefinition,
  scriptedReply,
  scriptedSystemSpec,
  smokeReply,
} from './scripted-systems';
export {
  type ScriptedModelDeclaration,
  type ScriptedModelEntry,
  type ScriptedServer,
  type ServeOptions,
  serveScriptedSystem,
} from './serve';
export {
  apiKeyEnvOf,
  DEFAULT_ANALYSIS_SEED,
  DEFAULT_LIVE_ROSTER,
  DEFAULT_LOADS,
  DEFAULT_OFFLINE_REPLICATES,
  DEFAULT_ROOT_SEED,
  DEFAULT_SAFETY_PRICE,
  DEFAULT_SCRIPTED_ROSTER,
  defaultOfflineSettings,
  OPENAI_KEY_ENV,
  OPENROUTER_BASE_URL,
  OPENROUTER_KEY_ENV,
  openAiCompatibleSystemSpec,
  openRouterSystemSpec,
  type PilotSettings,
  PROTOCOL_ID,
  systemIdFor,
  validateSettings,
} from './settings';
export { latestSmokeResults, runSmokeChecks, type SmokeOptions } from './smoke';
export {
  EXIT_ON_SECOND_SIGNAL,
  installStopSignals,
  type SignalProcess,
  STOP_SIGNALS,
  type StopSignalName,
  type StopSignals,
} from './stop-signals';
export {
  apiKeyForSystem,
  type LiveModelContext,
  modelsForManifest,
  scriptedNameOf,
} from './system-models';
