import type { RunChartData } from '@chi/analysis';
import { systemLabel } from '@chi/analysis/internal';
import { estimateFigure } from './estimate-chart';
import type { FigureDefinition } from './figure-definition';
import {
  denominatorSummary,
  ESTIMATE_COLUMNS,
  estimateColumns,
  notebookPoints,
  pct,
  sortedLoads,
  systemOrder,
  WORLD_SET_DETAIL,
  worldSetCell,
} from './figure-parts';

/** The six Q_M factors as the figure names them. */
export const FACTOR_LABELS = {
  r: 'r current retrieval',
  t: 't historical (as-of)',
  s: 's content and source',
  u: 'u authoritative update',
  i: 'i interference',
  oneMinusF: '1 − f (absent-key lures)',
} as const;

/**
 * Figure: the six Q_M factors by load, one panel per factor, one series per system in the
 * system's fixed colour and shape, series offset on x so identical curves stay visible.
 */
export function memoryComponentsFigure(data: RunChartData): FigureDefinition | null {
  const points = notebookPoints(data);
  if (points.length === 0) return null;
  const loads = sortedLoads(points);
  const rows = points.flatMap((p) =>
    (Object.keys(FACTOR_LABELS) as (keyof typeof FACTOR_LABELS)[]).map((factor) => ({
      system: systemLabel(data.run, p.systemId),
      load: p.load,
      factor: FACTOR_LABELS[factor],
      ...estimateColumns(p.factors[factor]),
      numerator:
        factor === 'oneMinusF'
          ? p.strata.f.denominator - p.strata.f.numerator
          : p.strata[factor].numerator,
      denominator: factor === 'oneMinusF' ? p.strata.f.denominator : p.strata[factor].denominator,
      worldSet: worldSetCell(p.worldSeeds),
    })),
  );
  const title = 'The six Q_M component curves per load';
  return estimateFigure(data, {
    id: 'memory-components',
    title,
    subtitle: `World-mean factor (unitless, 0–1) by load, one colour and shape per system, systems drawn side by side around each load. Bars: pointwise ${pct(data)} bootstrap intervals. Q_M ≥ tau does not imply every factor ≥ tau.`,
    description: `${title}: r, t, s, u, i and 1 − f as world means (unitless, 0 to 1) by load N (${loads.join(', ')}), one colour and point shape per system.`,
    caption: [
      `Every factor of Q_M for the notebook condition: world-mean r, t, s, u, i and 1 − f with pointwise ${pct(data)} intervals. Systems are drawn slightly apart on x around each tested load, so systems with equal values stay visible side by side. Pooled numerators and denominators are in the CSV and the tables below.`,
    ],
    denominators: denominatorSummary(
      points.map((p) => p.blocks),
      points.flatMap((p) => Object.values(p.factors)),
    ),
    estimates: points.flatMap((p) => Object.values(p.factors)),
    columns: [
      'system',
      'load',
      'factor',
      ...ESTIMATE_COLUMNS,
      'numerator',
      'denominator',
      'worldSet',
    ],
    rows,
    chart: {
      kind: 'line',
      facet: { field: 'factor', title: null, order: Object.values(FACTOR_LABELS) },
      series: { field: 'system', title: 'System', order: systemOrder(data) },
      x: { kind: 'load', loads, title: 'Load N (log2 axis)' },
      yTitle: 'World-mean factor (0–1)',
      yDomain: [0, 1],
      yTicks: [0, 0.2, 0.4, 0.6, 0.8, 1],
      height: 140,
      detail: WORLD_SET_DETAIL,
    },
  });
}
