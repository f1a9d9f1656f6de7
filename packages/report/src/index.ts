/**
 * `@chi/report`: turns a pilot run folder into a release bundle (canonical JSON, SHA256SUMS, chart
 * data as JSON and CSV, SVG figures, Markdown and HTML report) and verifies a release by
 * recomputing every number from the raw responses.
 *
 * @example
 * ```ts
 * import { verifyRelease, writeRelease } from '@chi/report';
 * await writeRelease({ runDir: 'chi-runs/20260901T080000Z-1a2b3c4d', outDir: 'release' });
 * const { ok, mismatches } = await verifyRelease('release');
 * ```
 *
 * @packageDocumentation
 */

export { MemoryTaxonomyCounter, memoryTaxonomy } from './analysis/memory-taxonomy';
export {
  type AnalyzeRunOptions,
  analyzeRun,
  defaultRunId,
  EXPLORATORY_BELOW_WORLDS,
} from './analyze-run';
export {
  calibrationChecks,
  heldOutSplit,
  IMITATOR_MODEL_ID,
  isImitatorSpec,
  pearson,
} from './calibration-checks';
export { canonicalJson, canonicalJsonSha256, sha256Hex } from './canonical-json';
export {
  type CaseCandidate,
  type CaseExample,
  CaseExampleSelector,
  notebookExcerpt,
  selectCaseExamples,
  type TracedProbe,
} from './case-examples';
export {
  type BehaviorPoint,
  BehaviorPointSchema,
  type BlockCounts,
  BlockCountsSchema,
  type BlockRow,
  BlockRowSchema,
  type ChartData,
  ChartDataSchema,
  type EimcEntry,
  EimcEntrySchema,
  type FactorEstimates,
  FactorEstimatesSchema,
  type FailureCount,
  FailureCountSchema,
  type HistoryDistance,
  HistoryDistanceSchema,
  type HistoryDynamics,
  HistoryDynamicsSchema,
  type HistoryPoint,
  HistoryPointSchema,
  type IntervalEstimate,
  IntervalEstimateSchema,
  type IntervalNote,
  IntervalNoteSchema,
  isScriptedOrSynthetic,
  type MemoryCondition,
  MemoryConditionSchema,
  type MemoryPoint,
  MemoryPointSchema,
  type ReportSystem,
  ReportSystemSchema,
  type ResourceRow,
  ResourceRowSchema,
  type RunFacts,
  RunFactsSchema,
  type SmokeRow,
  SmokeRowSchema,
  type TaxonomyCount,
  TaxonomyCountSchema,
} from './chart-data';
export { type CsvCell, parseCsv, toCsv } from './csv';
export {
  type BehaviorIndicator,
  type EstimandWorldSets,
  estimandWorldSets,
} from './estimand-world-sets';
export { evidenceBanner, runEvidenceBanner, systemLabel } from './evidence-label';
export { EVIDENCE_MAP, type EvidenceMapRow } from './evidence-map';
export { behaviorScorer } from './experiment-scorers/behavior-scorer';
export {
  type AnyBlockScorer,
  type BlockScorer,
  type BlockScorerInput,
  type BlockScorerResult,
  defineBlockScorer,
  type ObservationBase,
  type ScoreKey,
} from './experiment-scorers/block-scorer';
export { feedbackValenceScorer } from './experiment-scorers/feedback-valence-scorer';
export { goalPersistenceScorer } from './experiment-scorers/goal-persistence-scorer';
export { historyScorer } from './experiment-scorers/history-scorer';
export { memoryScorer } from './experiment-scorers/memory-scorer';
export { analyzeModule, type ModuleEstimate } from './experiment-scorers/module-analysis';
export {
  MODULE_FIGURE_COLUMNS,
  moduleFigure,
  moduleFigureAxis,
} from './experiment-scorers/module-figure';
export {
  buildModuleFigures,
  type ModuleFigureRelease,
} from './experiment-scorers/module-figures-release';
export {
  buildModuleRelease,
  type ModuleRelease,
  type ModuleSection,
} from './experiment-scorers/module-release';
export {
  BUILT_IN_SCORERS,
  type ModuleObservation,
  type ModuleScores,
  scoreModule,
} from './experiment-scorers/module-scores';
export { blockScorerOf, PILOT_BLOCK_SCORERS } from './experiment-scorers/pilot-scorers';
export { failpoint } from './failpoint';
export {
  buildFigures,
  cellLabel,
  compareText,
  denominatorSummary,
  type FigureCell,
  type FigureDefinition,
} from './figures';
export {
  formatEstimate,
  formatNumber,
  formatRatio,
  formatUsd,
  intervalNoteText,
} from './format-number';
export { boundHeapGrowth, CLI_HEAP_GROWING_PERCENT, heapGrowthFlag } from './heap-growth';
export { type HistoryProbeReading, readHistoryProbe } from './history-probe-reading';
export {
  INSPECT_LOG_SCHEMA_RELEASE,
  inspectLogs,
} from './inspect/inspect-log';
export type { InspectEvalLog } from './inspect/json';
export { PackedText } from './packed-text';
export { plannedRequestOf, requestOrdinalOf } from './plan-view';
export { chanceAccuracy, profileClusters } from './profile-features';
export {
  type AnalyzeProfilesOptions,
  analyzeProfiles,
  COMBINATION_RULE,
  NO_RUN_CALIBRATION_REASON,
  participantSeed,
} from './profiles';
export {
  type CapacityRow,
  type ChiRow,
  type FeatureRow,
  type LayeredEstimate,
  type ProfilesData,
  ProfilesDataSchema,
  type SimilarityRow,
} from './profiles-data';
export { profileFiles, profileReportBlocks, profileTables } from './profiles-files';
export {
  chiPackageDirs,
  DEFAULT_VERIFIER_PATH,
  describeReleaseCode,
  isCodePath,
  type PackedPackageEntry,
  type PackReleaseCodeOptions,
  packPackageDir,
  packReleaseCode,
  RELEASE_CODE_DIR,
  RELEASE_VERIFIER_FILE,
  RELEASE_VERIFY_COMMAND,
  type ReleaseCode,
  type ReleaseCodeSection,
  tarballName,
} from './release-code';
export {
  buildDerivedRelease,
  DEFAULT_RELEASE_PARAMETERS,
  type DerivedRelease,
  derivedPaths,
  derivedText,
  isRawPath,
  RAW_PREFIXES,
  REPORT_VERSION,
  type ReleaseParameters,
} from './release-files';
export { escapeHtml, renderHtml, renderMarkdown } from './render-report';
export { type FigureSource, renderFigureSvg, type VegaLiteSpec } from './render-svg';
export {
  buildReportDocument,
  type PilotExperimentsIncluded,
  type ReportBlock,
  type ReportInput,
} from './report-document';
export { CALIBRATION_FILE, readRunCalibration } from './run-calibration';
export { partialRunText, type RunCompleteness, runCompleteness } from './run-completeness';
export {
  type Located,
  memoryWorldKey,
  parseJsonLines,
  type ReadRunFolderOptions,
  type RunFileReadHook,
  type RunFiles,
  type RunRecords,
  readRunFolder,
  readRunJsonFileSync,
} from './run-folder';
export { assertRunFolderIntact, type IntegrityProblems, integrityProblems } from './run-integrity';
export {
  type BehaviorObservation,
  type BehaviorTraceLine,
  type HistoryObservation,
  type HistoryTraceLine,
  type MemoryObservation,
  type MemoryTraceLine,
  type ProbeNotebooks,
  type RunScores,
  type ScoreRunOptions,
  scoreRun,
  type TraceSink,
} from './score-run';
export { findSecrets, type SecretFinding } from './secrets';
export {
  checkSha256Sums,
  compareUtf8,
  formatSha256Sums,
  hashTree,
  listTreeFiles,
  parseSha256Sums,
  SHA256SUMS_FILE,
  type Sha256SumsEntry,
  type Sha256SumsProblem,
  writeSha256Sums,
} from './sha256-sums';
export { packTarGzip, readTarGzip, type TarEntry } from './tar-gzip';
export { runVerifyCli, type VerifyCliIo } from './verify-cli';
export {
  diffJson,
  type VerifyMismatch,
  type VerifyReleaseOptions,
  type VerifyReport,
  verifyRelease,
} from './verify-release';
export { answerViewApi, type ViewApiParams, viewApiPath } from './view/view-api';
export { writeViewBundle } from './view/view-bundle';
export type { ViewItem } from './view/view-items';
export {
  type AttemptProgress,
  foldAttemptProgress,
  readViewProgress,
  type ViewProgress,
  type ViewRunState,
} from './view/view-progress';
export {
  ITEM_PAGE,
  openViewRun,
  type ViewAttempt,
  type ViewCell,
  type ViewItemPage,
  type ViewItemQuery,
  type ViewRequest,
  type ViewRun,
  type ViewSummary,
  type ViewSystem,
  type ViewWorldPage,
  WORLD_PAGE,
} from './view/view-run';
export { startViewServer, type ViewServer, type ViewServerOptions } from './view/view-server';
export { type InspectExportSummary, writeInspectLogs } from './write-inspect-logs';
export {
  type ReleaseStep,
  type ReleaseSummary,
  SecretLeakError,
  type WriteReleaseOptions,
  writeRelease,
} from './write-release';
