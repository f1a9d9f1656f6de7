import { chartPartOf, type RunChartData } from '@chi/analysis';
import { isControlCondition, type MemoryCondition, systemLabel } from '@chi/analysis/internal';
import { estimateFigure } from './estimate-chart';
import type { FigureDefinition } from './figure-definition';
import {
  bySystemLoadCondition,
  denominatorSummary,
  ESTIMATE_COLUMNS,
  estimateColumns,
  pct,
  systemOrder,
  worldSetCell,
} from './figure-parts';

/** The memory conditions as the controls figure names them. */
export const CONDITION_LABELS: Record<MemoryCondition, string> = {
  notebook: 'notebook (evaluated)',
  blank: 'blank-notebook control',
  oracle: 'oracle-evidence control (in-context, not EIMC)',
  replay: 'transcript replay (uncapped baseline, costed)',
};

/**
 * Figure: Q_M of the blank-notebook and oracle-evidence controls beside the evaluated notebook at
 * the control load, one panel per system (bars in the system's colour, lighter for controls).
 */
export function memoryControlsFigure(data: RunChartData): FigureDefinition | null {
  const controls = chartPartOf(data, 'memory').memory.filter((p) =>
    isControlCondition(p.condition),
  );
  if (controls.length === 0) return null;
  const controlLoads = new Set(controls.map((p) => p.load));
  const points = chartPartOf(data, 'memory')
    .memory.filter((p) => controlLoads.has(p.load) && p.condition !== 'replay')
    .sort(bySystemLoadCondition);
  const rows = points.map((p) => ({
    system: systemLabel(data.run, p.systemId),
    load: p.load,
    condition: CONDITION_LABELS[p.condition],
    ...estimateColumns(p.qualityScore),
    worldSet: worldSetCell(p.worldSeeds),
  }));
  const loadsText = [...controlLoads].sort((a, b) => a - b).join(', ');
  const title = `Controls at N = ${loadsText} beside the N = ${loadsText} result`;
  const order = (['notebook', 'blank', 'oracle'] as const).map((c) => CONDITION_LABELS[c]);
  return estimateFigure(data, {
    id: 'memory-controls',
    title,
    subtitle: `Q_M of world-mean factors (unitless, 0–1), bars: notebook (evaluated), blank-notebook control, oracle-evidence control (lighter); value above each bar (n/a: undefined); black bars: pointwise ${pct(data)} intervals. The blank control tests dependence on the notebook; the oracle control is in-context and is not EIMC.`,
    description: `${title}: Q_M (unitless, 0 to 1) of the evaluated notebook condition, the blank-notebook reset control and the oracle-evidence control on the same blind questions, per system.`,
    caption: [
      `Q_M at N = ${loadsText} for the evaluated notebook system, the blank-notebook reset control (tests dependence on supplied evidence; not a test of an autonomous memory system) and the oracle-evidence control (original records in context: tests solvability; not EIMC).`,
      "The notebook bar is the capacity curve's point (the worlds complete at every tested load); each control uses the worlds complete in its own block. The CSV's worldSet column names the worlds of every bar.",
    ],
    denominators: denominatorSummary(
      points.map((p) => p.blocks),
      points.map((p) => p.qualityScore),
    ),
    estimates: points.map((p) => p.qualityScore),
    columns: ['system', 'load', 'condition', ...ESTIMATE_COLUMNS, 'worldSet'],
    rows,
    chart: {
      kind: 'bar',
      facet: { field: 'system', title: null, order: systemOrder(data) },
      category: {
        field: 'condition',
        title: null,
        order,
        shortLabels: {
          [CONDITION_LABELS.notebook]: 'notebook',
          [CONDITION_LABELS.blank]: 'blank',
          [CONDITION_LABELS.oracle]: 'oracle',
        },
      },
      categoryOpacity: [1, 0.4, 0.7],
      yTitle: 'Q_M (unitless, 0–1)',
      yDomain: [0, 1],
      yTicks: [0, 0.2, 0.4, 0.6, 0.8, 1],
    },
  });
}
