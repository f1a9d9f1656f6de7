import type { RunChartData } from '@chi/analysis';
import { systemLabel } from '@chi/analysis/internal';
import { formatEstimate, formatRatio } from './format-number';
import type { ReportBlock } from './report-block';

const FEATURE_TEXT: Record<string, string> = {
  R: 'R accuracy (item verdicts)',
  C: 'C accuracy (item verdicts)',
  A: 'A accuracy (item verdicts)',
  I: 'I accuracy (item verdicts)',
  'A-frame-change': 'frame-induced change (pair indicators)',
};

/**
 * Which probes the wording-invariance check covers: only the behavioral items have a declared
 * second wording, so the check says nothing about the others.
 */
export const WORDING_COVERAGE =
  'Coverage: only the behavioral items (R, C, A and I) have a declared second wording, so only they are checked. The memory probes, the history probes and the opt-in environments were asked under one wording only; this check says nothing about their wording invariance.';

/**
 * The probe-wording invariance section: per system and behavioral feature, how often the coded
 * outcome of an item agrees between its two declared wordings. Empty for a one-wording run.
 */
export function wordingAgreementBlocks(data: RunChartData): ReportBlock[] {
  const rows = data.wordingAgreement ?? [];
  if (rows.length === 0) return [];
  return [
    { kind: 'heading', level: 3, text: 'Probe-wording invariance', id: 'probe-wording' },
    {
      kind: 'paragraph',
      text: '"Do profiles remain stable under equivalent probe wording?" Every behavioral item was asked a second time, in fresh requests, under its declared equivalent wording (the same facts, options and answer format, phrased differently). Agreement is the share of paired items whose verdict is the same under both wordings (for the frame-induced change: the share of matched pairs, valid under both wordings, whose change indicator is the same), as a mean over worlds; intervals resample worlds, each with both of its wordings. 1 means wording-invariant; agreement says nothing about accuracy.',
    },
    {
      kind: 'paragraph',
      text: WORDING_COVERAGE,
    },
    {
      kind: 'table',
      caption:
        'Per-feature agreement between the two wordings [95% CI], pooled agreeing / paired, and worlds used.',
      columns: ['System', 'Feature', 'Agreement [95% CI]', 'Agreeing / paired', 'Worlds'],
      rows: rows.map((row) => [
        systemLabel(data.run, row.systemId),
        FEATURE_TEXT[row.feature] ?? row.feature,
        formatEstimate(row.agreement),
        formatRatio(row.pooled),
        String(row.worldSeeds.length),
      ]),
    },
  ];
}
