/**
 * `@chi/analysis/test`: chart data and run scores to test against. {@link sampleChartData} is a
 * small, hand-made `RunChartData` (three systems, three worlds; `sampleChartDataFile` is the same in
 * the layout of `chart-data.json`); {@link fiveSystemChartData} widens it
 * to the pilot's five scripted systems; {@link runScoresOf} and {@link withExperimentScores} make
 * `RunScores` by hand, keyed by experiment. Synthetic: no run produced them.
 *
 * @packageDocumentation
 */
export {
  type ExperimentScoresInput,
  heldAsArrays,
  runScoresOf,
  withExperimentScores,
} from './run-scores-of';
export { sampleChartData, sampleChartDataFile } from './sample-chart-data';
export { fiveSystemChartData, fiveSystemChartDataFile } from './wide-chart-data';
