import { chartPartOf, type RunChartData } from '@chi/analysis';
import { systemLabel } from '@chi/analysis/internal';
import { estimateFigure } from './estimate-chart';
import type { FigureDefinition } from './figure-definition';
import {
  denominatorSummary,
  ESTIMATE_COLUMNS,
  estimateColumns,
  pct,
  systemOrder,
} from './figure-parts';

/** The behavioral indicators as figures and tables name them. */
export const INDICATOR_LABELS = {
  R: 'R reasoning',
  C: 'C next-action choice',
  A: 'A framing (accuracy)',
  I: 'I integration',
  'A-frame-change': 'A frame-induced change (rate)',
} as const;

/**
 * Figure: the behavioral task indicators, one panel per system, bars in the system's colour (the
 * frame-induced change rate lighter: it is a rate, not an accuracy).
 */
export function behaviorFigure(data: RunChartData): FigureDefinition | null {
  if (chartPartOf(data, 'behavior').behavior.length === 0) return null;
  const order = Object.values(INDICATOR_LABELS);
  const rows = chartPartOf(data, 'behavior').behavior.map((p) => ({
    system: systemLabel(data.run, p.systemId),
    indicator: INDICATOR_LABELS[p.indicator],
    ...estimateColumns(p.value),
    numerator: p.pooled.numerator,
    denominator: p.pooled.denominator,
    invalid: p.invalid.numerator,
  }));
  const title = 'Behavioral task indicators';
  return estimateFigure(data, {
    id: 'behavior',
    title,
    subtitle: `Task accuracy (0–1) for R reasoning, C next-action choice, A framing, I integration, and (lighter bar, “A change”) the rate of matched A pairs whose choice changed with the frame: a stronger framing effect is not a better score. Value above each bar; black bars: pointwise ${pct(data)} intervals.`,
    description: `${title}: world-mean accuracy on R (8 items), C (4), A (8) and I (4) per world, and the frame-induced change rate of the 4 matched A pairs, per system. These are partial task indicators, not validated axis scores.`,
    caption: [
      'Partial task indicators, not validated full-axis capacity scores. C probes information-seeking choice, not self-generated goals; A reports choices, not feelings.',
    ],
    denominators: denominatorSummary(
      chartPartOf(data, 'behavior').behavior.map((p) => p.blocks),
      chartPartOf(data, 'behavior').behavior.map((p) => p.value),
    ),
    estimates: chartPartOf(data, 'behavior').behavior.map((p) => p.value),
    columns: ['system', 'indicator', ...ESTIMATE_COLUMNS, 'numerator', 'denominator', 'invalid'],
    rows,
    chart: {
      kind: 'bar',
      facet: { field: 'system', title: null, order: systemOrder(data) },
      category: {
        field: 'indicator',
        title: null,
        order,
        shortLabels: Object.fromEntries(
          Object.entries(INDICATOR_LABELS).map(([code, label]) => [
            label,
            code === 'A-frame-change' ? 'A change' : code,
          ]),
        ),
      },
      categoryOpacity: [1, 1, 1, 1, 0.4],
      yTitle: 'Share (unitless, 0–1)',
      yDomain: [0, 1],
      yTicks: [0, 0.2, 0.4, 0.6, 0.8, 1],
    },
  });
}
