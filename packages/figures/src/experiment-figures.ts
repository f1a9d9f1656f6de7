import type { RunChartData } from '@chi/analysis';
import { behaviorFigure } from './behavior';
import { failureTaxonomyFigure } from './failure-taxonomy';
import type { FigureDefinition } from './figure-definition';
import { historyDistanceFigure } from './history-distance';
import { historyRateFigure } from './history-rate';
import { memoryCapacityFigure } from './memory-capacity';
import { memoryComponentsFigure } from './memory-components';
import { memoryControlsFigure } from './memory-controls';

/**
 * One experiment's figures, registered under its experiment ID: built from the chart data alone
 * (its part, `chartPartOf`), in the order the report shows them; null for a figure without data.
 */
export interface ExperimentFigures {
  readonly experimentId: string;
  figures(data: RunChartData): readonly (FigureDefinition | null)[];
}

/** The memory experiment's figures: capacity curves, components, controls, failure taxonomy. */
export const memoryFigures: ExperimentFigures = {
  experimentId: 'memory',
  figures: (data) => [
    memoryCapacityFigure(data),
    memoryComponentsFigure(data),
    memoryControlsFigure(data),
    failureTaxonomyFigure(data),
  ],
};

/** The history experiment's figures: accuracy, explicit-unknown rate, distances. */
export const historyFigures: ExperimentFigures = {
  experimentId: 'history',
  figures: (data) => [
    historyRateFigure(data, 'accuracy'),
    historyRateFigure(data, 'unknownRate'),
    historyDistanceFigure(data),
  ],
};

/** The behavior experiment's figure: the task indicators. */
export const behaviorFigures: ExperimentFigures = {
  experimentId: 'behavior',
  figures: (data) => [behaviorFigure(data)],
};

/**
 * The figures registry: the toolkit's experiments with figures of their chart-data part, in report
 * order. An added experiment passes its own beside these: `[...BUILT_IN_FIGURES, mine]`.
 */
export const BUILT_IN_FIGURES: readonly ExperimentFigures[] = [
  memoryFigures,
  historyFigures,
  behaviorFigures,
];
