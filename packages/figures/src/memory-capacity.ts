import type { RunChartData } from '@chi/analysis';
import type { MemoryPoint } from '@chi/analysis/internal';
import { systemLabel } from '@chi/analysis/internal';
import { estimateFigure } from './estimate-chart';
import type { FigureDefinition } from './figure-definition';
import {
  denominatorSummary,
  ESTIMATE_COLUMNS,
  estimateColumns,
  notebookPoints,
  pct,
  referenceRule,
  sortedLoads,
  systemOrder,
  WORLD_SET_DETAIL,
  worldSetCell,
} from './figure-parts';

const PRIMARY = 'Q_M of world-mean factors (primary)';
const WITHIN = 'mean within-world Q_M (different quantity)';
const UNIT_TICKS = [0, 0.2, 0.4, 0.6, 0.8, 1];

/**
 * Figure: the memory capacity curve Q_M(N), one panel per system, the primary Q_M and the mean
 * within-world Q_M as two labelled series, with the tau thresholds as reference rules.
 */
export function memoryCapacityFigure(data: RunChartData): FigureDefinition | null {
  const points = notebookPoints(data);
  if (points.length === 0) return null;
  const series = (p: MemoryPoint) => [
    { quantity: PRIMARY, estimate: p.qualityScore },
    { quantity: WITHIN, estimate: p.meanWithinWorldQualityScore },
  ];
  const rows = points.flatMap((p) =>
    series(p).map(({ quantity, estimate }) => ({
      system: systemLabel(data.run, p.systemId),
      load: p.load,
      quantity,
      ...estimateColumns(estimate),
      worldSet: worldSetCell(p.worldSeeds),
    })),
  );
  const loads = sortedLoads(points);
  const taus = data.run.analysis.taus;
  const title = 'Memory capacity curve Q_M(N) per system';
  return estimateFigure(data, {
    id: 'memory-capacity',
    title,
    subtitle: `Solid line, circles: ${PRIMARY}; dashed, squares: ${WITHIN}. Bars: pointwise ${pct(data)} bootstrap intervals. Grey dashed rules: tau = ${taus.join(', ')}.`,
    description: `${title}. Q_M is unitless in [0, 1]; x is the number of target keys N on a log2 axis (${loads.join(', ')}).`,
    caption: [
      `Q_M of the equally weighted world-mean factors (primary estimand, solid) and the mean of each world's own Q_M (a different quantity, dashed) for the evaluated notebook condition, with pointwise ${pct(data)} cluster-bootstrap percentile intervals (${data.run.analysis.resamples} resamples of worlds, analysis seed ${data.run.analysis.seed}).`,
      `Grey rules mark tau = ${taus.join(', ')}; EIMC reads the largest tested load at or above tau. The two series are drawn slightly apart on x so that equal values stay visible.`,
    ],
    denominators: denominatorSummary(
      points.map((p) => p.blocks),
      points.flatMap((p) => series(p).map((s) => s.estimate)),
    ),
    estimates: points.flatMap((p) => series(p).map((s) => s.estimate)),
    columns: ['system', 'load', 'quantity', ...ESTIMATE_COLUMNS, 'worldSet'],
    rows,
    chart: {
      kind: 'line',
      facet: { field: 'system', title: null, order: systemOrder(data) },
      series: { field: 'quantity', title: 'Quantity', order: [PRIMARY, WITHIN] },
      x: { kind: 'load', loads, title: 'Load N (target keys, log2 axis)' },
      yTitle: 'Q_M (unitless, 0–1)',
      yDomain: [0, 1],
      yTicks: UNIT_TICKS,
      beneath: taus.map((tau) => referenceRule(tau, { dashed: true })),
      detail: WORLD_SET_DETAIL,
    },
  });
}
