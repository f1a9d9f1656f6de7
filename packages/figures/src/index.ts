/**
 * `@chi/figures`: every figure of a CHI/CHIS release as a Vega-Lite spec built from chart data
 * alone, and its rendering to SVG. The only package of the toolkit that depends on vega and
 * vega-lite: the analysis (`@chi/analysis`) and the run viewer never load them.
 *
 * @example
 * ```ts
 * import { buildFigures, renderFigureSvg } from '@chi/figures';
 * for (const figure of buildFigures(chartData)) {
 *   const svg = await renderFigureSvg(figure); // the bytes of figures/<id>.svg
 * }
 * ```
 *
 * @packageDocumentation
 */

export { BUILT_IN_FIGURES, type ExperimentFigures } from './experiment-figures';
export type { FigureCell, FigureDefinition, FigureRow } from './figure-definition';
export { buildFigures } from './figures';
export { moduleFigure } from './module-figure';
export { profilesFigure } from './profiles-figure';
export { type FigureSource, renderFigureSvg, type VegaLiteSpec } from './render-svg';
export { systemColors } from './system-colors';
