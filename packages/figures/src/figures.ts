import type { RunChartData } from '@chi/analysis';
import { comparisonsFigure } from './comparisons';
import { BUILT_IN_FIGURES, type ExperimentFigures } from './experiment-figures';
import type { FigureDefinition } from './figure-definition';
import { resourcesFigure } from './resources';

export type { FigureCell, FigureDefinition } from './figure-definition';
export { cellLabel, compareText, denominatorSummary } from './figure-parts';
export { systemColors } from './system-colors';

/**
 * Every figure of a release, built from the chart data alone (so `chi verify` can rebuild them),
 * in the order the report shows them (so figure numbers follow reading order): each registered
 * experiment's figures in registry order, then the run's own (paired comparisons, resources).
 * Figures without data (e.g. no history experiment in the run) are left out.
 */
export function buildFigures(
  data: RunChartData,
  experiments: readonly ExperimentFigures[] = BUILT_IN_FIGURES,
): FigureDefinition[] {
  return [
    ...experiments.flatMap((experiment) => experiment.figures(data)),
    comparisonsFigure(data),
    resourcesFigure(data),
  ].filter((figure): figure is FigureDefinition => figure !== null);
}
