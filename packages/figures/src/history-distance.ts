import { chartPartOf, type RunChartData } from '@chi/analysis';
import type { HistoryDistance } from '@chi/analysis/internal';
import { systemLabel } from '@chi/analysis/internal';
import { estimateFigure } from './estimate-chart';
import type { FigureDefinition } from './figure-definition';
import {
  denominatorSummary,
  ESTIMATE_COLUMNS,
  estimateColumns,
  pct,
  referenceRule,
  systemOrder,
  WORLD_SET_DETAIL,
  worldSetCell,
} from './figure-parts';

const QUANTITIES = ['D(A,B)', 'D(A,A2)', 'divergence D(A,B) − D(A,A2)'] as const;

/**
 * Figure: D(A,B), D(A,A2) and the experience divergence per checkpoint, one panel per system.
 */
export function historyDistanceFigure(data: RunChartData): FigureDefinition | null {
  if (chartPartOf(data, 'history').historyDistances.length === 0) return null;
  const series = (d: HistoryDistance) => [
    { quantity: QUANTITIES[0], estimate: d.distanceAB },
    { quantity: QUANTITIES[1], estimate: d.distanceAA2 },
    { quantity: QUANTITIES[2], estimate: d.divergence },
  ];
  const rows = chartPartOf(data, 'history').historyDistances.flatMap((d) =>
    series(d).map(({ quantity, estimate }) => ({
      system: systemLabel(data.run, d.systemId),
      checkpoint: d.checkpoint,
      quantity,
      ...estimateColumns(estimate),
      worldSet: worldSetCell(d.worldSeeds),
    })),
  );
  const estimates = chartPartOf(data, 'history').historyDistances.flatMap((d) =>
    series(d).map((s) => s.estimate),
  );
  const title = 'History: distances between histories and experience divergence';
  return estimateFigure(data, {
    id: 'history-distance',
    title,
    subtitle: `Mean absolute coordinate difference of decision vectors (A = 0, unknown = 0.5, B = 1), unitless. Invalid vectors give null, not agreement. D(A,B) solid with circles, D(A,A2) dashed with squares, divergence dotted with triangles. Bars: pointwise ${pct(data)} intervals.`,
    description: `${title}: D(A,B), D(A,A2) and their difference per checkpoint 0 to 4, per system.`,
    caption: [
      "Distance between the decision vectors of histories A and B, of the same-history control pair A and A2, and the experience divergence D(A,B) − D(A,A2). All three numbers of a checkpoint use one world set: the complete worlds whose A, B and A2 vectors are all fully valid there, so the divergence is exactly D(A,B) − D(A,A2) as drawn; where no world qualifies the values are null (a gap). Lines join only checkpoints with the same world set. A2's requests are byte-identical to A's, so only sampling noise makes D(A,A2) positive: a deterministic system (such as the scripted reference systems) has D(A,A2) = 0.",
    ],
    denominators: denominatorSummary(
      chartPartOf(data, 'history').historyDistances.map(
        (d) =>
          chartPartOf(data, 'history').history.find((h) => h.systemId === d.systemId)?.blocks ?? {
            planned: 0,
            complete: 0,
            incomplete: 0,
            missing: 0,
          },
      ),
      estimates,
    ),
    estimates,
    columns: ['system', 'checkpoint', 'quantity', ...ESTIMATE_COLUMNS, 'worldSet'],
    rows,
    chart: {
      kind: 'line',
      facet: { field: 'system', title: null, order: systemOrder(data) },
      series: { field: 'quantity', title: 'Quantity', order: [...QUANTITIES] },
      x: { kind: 'checkpoint', title: 'Checkpoint' },
      yTitle: 'Distance (unitless)',
      yDomain: [-1, 1],
      yTicks: [-1, -0.5, 0, 0.5, 1],
      beneath: [referenceRule(0)],
      detail: WORLD_SET_DETAIL,
    },
  });
}
