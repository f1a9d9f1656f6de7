/**
 * `@chi/figures/internal`: the pieces of the figures that `@chi/report` uses in its text (labels,
 * captions, panels) and tests. No stability promise: names here may change in any release. The
 * public API is `@chi/figures` (api/figures.api.txt).
 *
 * @packageDocumentation
 */
export { comparisonsFigure, pairLabel } from './comparisons';
export { cellLabel, compareText } from './figure-parts';
export { omittedPanelsText, resourcePanels } from './resources';
export { systemColorScale } from './system-colors';
