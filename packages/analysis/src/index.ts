/**
 * `@chi/analysis`: the CHI/CHIS analysis as pure functions of scored data. Scores in (what
 * `scoreRun` of `@chi/report` returns), chart data out: world sets fixed before resampling, the
 * run's one world-cluster bootstrap, estimates with pointwise intervals, comparisons, profiles and
 * the `chart-data.json` schema. It reads no file and draws no figure, so code that only computes
 * numbers installs neither the run-folder reader nor the chart libraries.
 *
 * @example
 * ```ts
 * import { ChartDataSchema, chartPartOf, runChartData } from '@chi/analysis';
 * const data = ChartDataSchema.parse(JSON.parse(chartDataJson));
 * console.log(chartPartOf(runChartData(data), 'memory').memory.length);
 * ```
 *
 * @packageDocumentation
 */
export { BootstrapRegistry } from './bootstrap-registry';
export {
  type ChartData,
  ChartDataSchema,
  type IntervalEstimate,
  type RunFacts,
} from './chart-data';
export {
  type ChartPartMap,
  type ChartParts,
  chartDataFile,
  chartPartOf,
  type RunChartData,
  runChartData,
} from './chart-parts';
export { evidenceBanner, runEvidenceBanner } from './evidence-label';
export { type MemoryExtras, memoryExtrasOf } from './memory-extras';
export { analyzeModule, type ModuleEstimate } from './module-analysis';
export { analyzeProfiles } from './profiles';
export {
  type BehaviorObservation,
  type BehaviorTraceLine,
  type ExperimentScores,
  type HistoryObservation,
  type HistoryTraceLine,
  isBehaviorObservation,
  isBehaviorTraceLine,
  isHistoryObservation,
  isHistoryTraceLine,
  isMemoryObservation,
  isMemoryTraceLine,
  type MemoryObservation,
  type MemoryTraceLine,
  type ModuleObservation,
  type ModuleScores,
  type ObservationBase,
  observationsOf,
  type ProbeNotebooks,
  type RunScores,
  type TraceLineBase,
  traceLinesOf,
} from './run-scores';
