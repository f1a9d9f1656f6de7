import { chartPartOf } from '@chi/analysis';
import { systemLabel } from '@chi/analysis/internal';
import { behaviorReportText } from '@chi/experiments/internal';
import { formatEstimate, formatRatio } from './format-number';
import type { ReportBlock } from './report-block';
import {
  type ExperimentSection,
  experimentOpening,
  figureBlocks,
  paragraph,
  type ReportInput,
  systemSection,
  worldsCell,
} from './report-section';
import { wordingAgreementBlocks } from './report-wording';

function behaviorBlocks(input: ReportInput): ReportBlock[] {
  const { data } = input;
  if (chartPartOf(data, 'behavior').behavior.length === 0) {
    return [
      ...systemSection(input, behaviorReportText.title, behaviorReportText.anchor),
      paragraph(behaviorReportText.absent),
    ];
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

/** The behavior experiment's part of the report: its section, then the probe-wording check. */
export const behaviorSection: ExperimentSection = {
  experimentId: 'behavior',
  sections: [behaviorBlocks, (input) => wordingAgreementBlocks(input.data)],
};
