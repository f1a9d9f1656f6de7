import { chartPartOf, type RunChartData } from '@chi/analysis';
import { systemLabel } from '@chi/analysis/internal';
import { HISTORY_IDS } from '@chi/spec/internal';
import { estimateFigure } from './estimate-chart';
import type { FigureDefinition } from './figure-definition';
import {
  denominatorSummary,
  ESTIMATE_COLUMNS,
  estimateColumns,
  pct,
  systemOrder,
} from './figure-parts';

/** The three histories in display order. */
export const HISTORIES = HISTORY_IDS;

/**
 * Figure: history accuracy or explicit-unknown rate per checkpoint, one panel per system, one
 * series per history (shape and dash; colour is the system's).
 */
export function historyRateFigure(
  data: RunChartData,
  which: 'accuracy' | 'unknownRate',
): FigureDefinition | null {
  if (chartPartOf(data, 'history').history.length === 0) return null;
  const rows = chartPartOf(data, 'history').history.map((p) => ({
    system: systemLabel(data.run, p.systemId),
    history: p.history,
    checkpoint: p.checkpoint,
    ...estimateColumns(p[which]),
    invalidDecisions: p.invalid.numerator,
    decisions: p.invalid.denominator,
  }));
  const isAccuracy = which === 'accuracy';
  const title = isAccuracy
    ? 'History: task accuracy per checkpoint'
    : 'History: explicit-unknown rate per checkpoint';
  return estimateFigure(data, {
    id: isAccuracy ? 'history-accuracy' : 'history-unknown',
    title,
    subtitle: `Checkpoints: 0 baseline, 1 ingest, 2–3 neutral, 4 correction. Histories A and B carry opposite evidence; A2 repeats A. A solid with circles, B dashed with squares, A2 dotted with triangles, drawn side by side. Bars: pointwise ${pct(data)} intervals.`,
    description: `${title} for histories A, B and A2 at checkpoints 0 to 4, per system; y is a share from 0 to 1. Invalid decisions are counted separately (see table).`,
    caption: [
      isAccuracy
        ? "Share of the four environment decisions equal to the warranted answer (unknown at checkpoint 0, the history's evidence at 1–3, the corrected rule at 4), world mean per history."
        : 'Share of the four decisions given as an explicit unknown, world mean per history; unknown is warranted at checkpoint 0 only.',
      'Invalid decisions are reported in the table, not counted as answers.',
    ],
    denominators: denominatorSummary(
      chartPartOf(data, 'history').history.map((p) => p.blocks),
      chartPartOf(data, 'history').history.map((p) => p[which]),
    ),
    estimates: chartPartOf(data, 'history').history.map((p) => p[which]),
    columns: [
      'system',
      'history',
      'checkpoint',
      ...ESTIMATE_COLUMNS,
      'invalidDecisions',
      'decisions',
    ],
    rows,
    chart: {
      kind: 'line',
      facet: { field: 'system', title: null, order: systemOrder(data) },
      series: { field: 'history', title: 'History', order: [...HISTORIES] },
      x: { kind: 'checkpoint', title: 'Checkpoint' },
      yTitle: isAccuracy ? 'Accuracy (share, 0–1)' : 'Explicit-unknown rate (0–1)',
      yDomain: [0, 1],
      yTicks: [0, 0.2, 0.4, 0.6, 0.8, 1],
    },
  });
}
