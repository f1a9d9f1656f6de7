/**
 * `@chi/analysis/test`: chart data and run scores to test against. {@link sampleChartData} is a
 * small, hand-made `ChartData` (three systems, three worlds); {@link fiveSystemChartData} widens it
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
export { sampleChartData } from './sample-chart-data';
export { fiveSystemChartData } from './wide-chart-data';
