/**
 * `@chi/analysis/internal`: what the repository's own packages (`@chi/report`, `@chi/figures`,
 * `@chi/pilot`) share with this one but users do not need: each experiment's analysis hook, the
 * world sets, the chart data's row types. No stability promise: names here may change in any
 * release. The public API is `@chi/analysis` (api/analysis.api.txt).
 *
 * @packageDocumentation
 */
export {
  type AnalysisContext,
  type ExperimentAnalysis,
  HeldScores,
  HeldWorlds,
  ratio,
  type WorldContribution,
  worldIndex,
} from './analysis-context';
export { type BehaviorPart, behaviorAnalysis, behaviorIn } from './behavior-analysis';
export type { BootstrapSettings } from './bootstrap-registry';
export { IMITATOR_MODEL_ID } from './calibration-checks';
export {
  type BlockCounts,
  type BlockRow,
  type ComparisonQuantity,
  type ComparisonRow,
  type Comparisons,
  type EimcEntry,
  type FailureCount,
  type HistoryDistance,
  isControlCondition,
  isScriptedOrSynthetic,
  type MemoryCondition,
  type MemoryPoint,
  type ReportSystem,
  type ResourceRow,
  type WordingAgreement,
} from './chart-data';
export {
  type BytesStoredRow,
  type CorpusRow,
  type TranscriptReplayRow,
  type WorldSpread,
  WorldSpreadSchema,
} from './chart-data-rows';
export type { ChartFilePart } from './chart-file-part';
export { CHART_FILE_PARTS, type ExperimentChartField } from './chart-parts';
export { compareUtf8 } from './compare-utf8';
export {
  type ComparisonSettings,
  comparisonPairs,
  comparisonResults,
  defineComparisons,
  eimcCensoring,
} from './comparison-analysis';
export { type EstimandWorldSets, estimandWorldSets } from './estimand-world-sets';
export { systemLabel } from './evidence-label';
export { type HistoryPart, historyAnalysis, historyIn } from './history-analysis';
export { type MemoryPart, memoryAnalysis, memoryIn } from './memory-analysis';
export { MemoryTaxonomyCounter } from './memory-taxonomy';
export { chanceAccuracy } from './profile-features';
export { runLevelChiReason } from './profiles';
export { type LayeredEstimate, type ProfilesData, ProfilesDataSchema } from './profiles-data';
export { plannedWorlds } from './world-sets';
