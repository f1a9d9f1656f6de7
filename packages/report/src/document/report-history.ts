import { chartPartOf, type RunChartData } from '@chi/analysis';
import { systemLabel } from '@chi/analysis/internal';
import { historyReportText } from '@chi/experiments/internal';
import { formatEstimate, formatRatio } from './format-number';
import type { ReportBlock } from './report-block';
import {
  type ExperimentSection,
  experimentAbsent,
  experimentOpening,
  figureBlocks,
  type HeadlineColumn,
  intervalLabel,
  optionalEstimateCell,
  type ReportInput,
  worldsCell,
} from './report-section';

function vectorText(coordinates: readonly (number | null)[]): string {
  return coordinates.map((c) => (c === null ? '×' : String(c))).join(' ');
}

function vectorTable(data: RunChartData): ReportBlock {
  const rows = new Map<string, string[]>();
  for (const v of chartPartOf(data, 'history').historyVectors) {
    const key = `${v.systemId}\u0000${v.worldSeed}\u0000${v.history}`;
    const row = rows.get(key) ?? [
      systemLabel(data.run, v.systemId),
      String(v.worldSeed),
      v.history,
      v.blockComplete ? 'complete' : 'incomplete (excluded)',
    ];
    row.push(vectorText(v.coordinates));
    rows.set(key, row);
  }
  return {
    kind: 'table',
    caption: 'Decision vector of each world, history and checkpoint (environments in world order).',
    columns: ['System', 'World', 'History', 'Block', 'c0', 'c1', 'c2', 'c3', 'c4'],
    rows: [...rows.values()],
  };
}

/** The history experiment's per-checkpoint table. */
function historyCheckpointTable(data: RunChartData): ReportBlock {
  return {
    kind: 'table',
    caption:
      'Per checkpoint: accuracy and explicit-unknown rate (world means, 95% CI), invalid decisions pooled.',
    columns: [
      'System',
      'History',
      'Checkpoint',
      'Worlds used / complete / planned',
      'Accuracy',
      'Explicit-unknown rate',
      'Invalid decisions',
      'Worlds with a fully valid vector',
    ],
    rows: chartPartOf(data, 'history').history.map((h) => [
      systemLabel(data.run, h.systemId),
      h.history,
      String(h.checkpoint),
      worldsCell(h.accuracy),
      formatEstimate(h.accuracy),
      formatEstimate(h.unknownRate),
      formatRatio(h.invalid),
      String(h.validVectors),
    ]),
  };
}

/** The distances between histories per checkpoint, with the divergence. */
function distanceTable(data: RunChartData): ReportBlock {
  return {
    kind: 'table',
    caption:
      'Distances between decision vectors. All three numbers of a row use one world set: the complete worlds whose A, B and A2 vectors are all fully valid at that checkpoint, so the divergence is exactly D(A,B) − D(A,A2); null where no world qualifies.',
    columns: [
      'System',
      'Checkpoint',
      'Worlds used / complete / planned',
      'D(A,B)',
      'D(A,A2)',
      'Divergence D(A,B) − D(A,A2)',
    ],
    rows: chartPartOf(data, 'history').historyDistances.map((d) => [
      systemLabel(data.run, d.systemId),
      String(d.checkpoint),
      worldsCell(d.divergence),
      formatEstimate(d.distanceAB),
      formatEstimate(d.distanceAA2),
      formatEstimate(d.divergence),
    ]),
  };
}

/** Continuity and correction response per history. */
function dynamicsTable(data: RunChartData): ReportBlock {
  return {
    kind: 'table',
    caption:
      'Continuity (1 − D between the neutral checkpoints 2 and 3, over the complete worlds with valid vectors at both checkpoints) and correction response (accuracy at 4 minus accuracy at 3 against the corrected rule, over the environments the correction changed).',
    columns: [
      'System',
      'History',
      'Continuity',
      'Worlds used / complete / planned',
      'Correction response',
      'Worlds used / complete / planned',
    ],
    rows: chartPartOf(data, 'history').historyDynamics.map((d) => [
      systemLabel(data.run, d.systemId),
      d.history,
      formatEstimate(d.continuity),
      worldsCell(d.continuity),
      formatEstimate(d.correctionResponse),
      worldsCell(d.correctionResponse),
    ]),
  };
}

function historyBlocks(input: ReportInput): ReportBlock[] {
  const { data } = input;
  if (chartPartOf(data, 'history').history.length === 0) {
    return experimentAbsent(input, historyReportText);
  }
  return [
    ...experimentOpening(input, historyReportText),
    ...figureBlocks(input, 'history-accuracy'),
    ...figureBlocks(input, 'history-unknown'),
    {
      kind: 'details',
      summary: `Accuracy and explicit-unknown rate per checkpoint (${chartPartOf(data, 'history').history.length} rows)`,
      blocks: [historyCheckpointTable(data)],
    },
    {
      kind: 'details',
      summary: `Decision vectors per world (${chartPartOf(data, 'history').historyVectors.length / 5} trajectories): A = 0, unknown = 0.5, B = 1, invalid = ×`,
      blocks: [vectorTable(data)],
    },
    ...figureBlocks(input, 'history-distance'),
    distanceTable(data),
    dynamicsTable(data),
  ];
}

/** The history experiment's headline column: the excess divergence at the primary checkpoint. */
function historyHeadlineColumns(data: RunChartData): HeadlineColumn[] {
  const distances = chartPartOf(data, 'history').historyDistances;
  if (distances.length === 0) return [];
  const checkpoint = data.run.analysis.primaryCheckpoint;
  return [
    {
      header: `Excess divergence, checkpoint ${checkpoint} [${intervalLabel(data)}]`,
      cell: (id) =>
        optionalEstimateCell(
          distances.find((d) => d.systemId === id && d.checkpoint === checkpoint)?.divergence,
        ),
    },
  ];
}

/** The history experiment's part of the report: its headline column and its one section. */
export const historySection: ExperimentSection = {
  experimentId: 'history',
  summary: { columns: historyHeadlineColumns },
  sections: [historyBlocks],
};
