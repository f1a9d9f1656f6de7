/**
 * `@chi/analysis/test`: chart data to test against. {@link sampleChartData} is a small, hand-made
 * `ChartData` (three systems, three worlds); {@link fiveSystemChartData} widens it to the pilot's
 * five scripted systems. Synthetic: no run produced them.
 *
 * @packageDocumentation
 */
export { sampleChartData } from './sample-chart-data';
export { fiveSystemChartData } from './wide-chart-data';
