import type { ChartData } from '@chi/analysis';
import { behaviorFigure } from './figures/behavior';
import { comparisonsFigure } from './figures/comparisons';
import { failureTaxonomyFigure } from './figures/failure-taxonomy';
import type { FigureDefinition } from './figures/figure-definition';
import { historyDistanceFigure } from './figures/history-distance';
import { historyRateFigure } from './figures/history-rate';
import { memoryCapacityFigure } from './figures/memory-capacity';
import { memoryComponentsFigure } from './figures/memory-components';
import { memoryControlsFigure } from './figures/memory-controls';
import { resourcesFigure } from './figures/resources';

export type { FigureCell, FigureDefinition } from './figures/figure-definition';
export { cellLabel, compareText, denominatorSummary } from './figures/figure-parts';
export { systemColors } from './figures/system-colors';

/**
 * Every figure of a release, built from the chart data alone (so `chi verify` can rebuild them),
 * in the order the report shows them (so figure numbers follow reading order). Figures without
 * data (e.g. no history experiment in the run) are left out. One builder per figure, in
 * `figures/`.
 */
export function buildFigures(data: ChartData): FigureDefinition[] {
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
