import { chartPartOf, type RunChartData } from '@chi/analysis';
import { type BehaviorPart, systemLabel } from '@chi/analysis/internal';
import { behaviorReportText } from '@chi/experiments/internal';
import { formatEstimate, formatNumber, formatRatio } from './format-number';
import type { ReportBlock } from './report-block';
import {
  type ExperimentSection,
  experimentAbsent,
  experimentOpening,
  figureBlocks,
  type HeadlineColumn,
  type ReportInput,
  worldsCell,
} from './report-section';
import { wordingAgreementBlocks } from './report-wording';

function behaviorBlocks(input: ReportInput): ReportBlock[] {
  const { data } = input;
  if (chartPartOf(data, 'behavior').behavior.length === 0) {
    return experimentAbsent(input, behaviorReportText);
  }
  return [
    ...experimentOpening(input, behaviorReportText),
    ...figureBlocks(input, 'behavior'),
    {
      kind: 'table',
      caption: 'Task indicators: world mean with 95% CI, and pooled counts.',
      columns: [
        'System',
        'Indicator',
        'Worlds used / complete / planned',
        'World mean [95% CI]',
        'Pooled',
        'Invalid',
      ],
      rows: chartPartOf(data, 'behavior').behavior.map((b) => [
        systemLabel(data.run, b.systemId),
        b.indicator,
        worldsCell(b.value),
        formatEstimate(b.value),
        formatRatio(b.pooled),
        formatRatio(b.invalid),
      ]),
    },
  ];
}

type BehaviorIndicator = BehaviorPart['behavior'][number]['indicator'];

const BEHAVIOR_ORDER: readonly BehaviorIndicator[] = ['R', 'C', 'A', 'I', 'A-frame-change'];

/** The behavior experiment's headline columns: one world mean per indicator the run has. */
function behaviorHeadlineColumns(data: RunChartData): HeadlineColumn[] {
  const points = chartPartOf(data, 'behavior').behavior;
  return BEHAVIOR_ORDER.filter((i) => points.some((b) => b.indicator === i)).map((indicator) => ({
    header: indicator === 'A-frame-change' ? 'Frame change' : indicator,
    // the world mean (its interval is in "Behavioral probes")
    cell: (id) => {
      const row = points.find((b) => b.systemId === id && b.indicator === indicator);
      if (row === undefined) return '—';
      return row.value.estimate === null ? 'undefined' : formatNumber(row.value.estimate);
    },
  }));
}

/** The most worlds any of a system's behavior indicators rests on. */
function behaviorWorlds(data: RunChartData, systemId: string): number | undefined {
  const rows = chartPartOf(data, 'behavior').behavior.filter((b) => b.systemId === systemId);
  return rows.length === 0 ? undefined : Math.max(...rows.map((b) => b.value.worlds));
}

/**
 * The behavior experiment's part of the report: its headline columns, its section, then the
 * probe-wording check.
 */
export const behaviorSection: ExperimentSection = {
  experimentId: 'behavior',
  summary: { columns: behaviorHeadlineColumns, worlds: behaviorWorlds },
  sections: [behaviorBlocks, (input) => wordingAgreementBlocks(input.data)],
};
