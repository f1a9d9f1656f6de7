import type { RunChartData } from '@chi/analysis';
import { behaviorFigure } from './behavior';
import { comparisonsFigure } from './comparisons';
import { failureTaxonomyFigure } from './failure-taxonomy';
import type { FigureDefinition } from './figure-definition';
import { historyDistanceFigure } from './history-distance';
import { historyRateFigure } from './history-rate';
import { memoryCapacityFigure } from './memory-capacity';
import { memoryComponentsFigure } from './memory-components';
import { memoryControlsFigure } from './memory-controls';
import { resourcesFigure } from './resources';

export type { FigureCell, FigureDefinition } from './figure-definition';
export { cellLabel, compareText, denominatorSummary } from './figure-parts';
export { systemColors } from './system-colors';

/**
 * Every figure of a release, built from the chart data alone (so `chi verify` can rebuild them),
 * in the order the report shows them (so figure numbers follow reading order). Figures without
 * data (e.g. no history experiment in the run) are left out. One builder per figure, in
 * `figures/`.
 */
export function buildFigures(data: RunChartData): FigureDefinition[] {
  return [
    memoryCapacityFigure(data),
    memoryComponentsFigure(data),
    memoryControlsFigure(data),
    failureTaxonomyFigure(data),
    historyRateFigure(data, 'accuracy'),
    historyRateFigure(data, 'unknownRate'),
    historyDistanceFigure(data),
    behaviorFigure(data),
    comparisonsFigure(data),
    resourcesFigure(data),
  ].filter((figure): figure is FigureDefinition => figure !== null);
}
