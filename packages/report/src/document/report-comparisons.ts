import type { RunChartData } from '@chi/analysis';
import type { ComparisonRow } from '@chi/analysis/internal';
import { pairLabel } from '@chi/figures/internal';
import { formatEstimate, formatNumber } from './format-number';
import type { ReportBlock } from './report-block';

const STATUS_SHORT: Record<NonNullable<ComparisonRow['statusA']>, string> = {
  capacity: 'capacity',
  lower_bound: 'lower bound',
  no_passing_load: 'no passing load',
};

function valueText(row: ComparisonRow, value: number | null, status: ComparisonRow['statusA']) {
  if (row.quantity !== 'eimc') return formatNumber(value);
  if (status === null) return 'not computed';
  return status === 'no_passing_load' ? 'no passing load' : `${value} (${STATUS_SHORT[status]})`;
}

function verdictText(row: ComparisonRow): string {
  if (row.censoring === 'both_same_side') return 'not comparable (both censored on one side)';
  if (row.differsFamilyWise === null) return 'not tested (no interval)';
  const bound = row.censoring === 'toward_zero' ? '; a bound toward zero' : '';
  return `${row.differsFamilyWise ? 'differs' : 'no family-wise difference'}${bound}`;
}

/**
 * The paired comparisons section's text and table (its heading, banner and figure come from the
 * report document): every row of the chart data's comparisons, in manifest order of the pairs,
 * never sorted by size.
 */
export function comparisonBlocks(data: RunChartData): ReportBlock[] {
  const comparisons = data.comparisons;
  if (comparisons === undefined) return [];
  const level = Math.round(data.run.analysis.level * 100);
  const threshold = data.run.analysis.exploratoryBelowWorlds;
  const exploratory = comparisons.rows.some((row) => row.difference.worlds < threshold);
  return [
    {
      kind: 'paragraph',
      text: `Each row is A − B: one number of system A minus the same number of system B, both computed over the worlds complete in both systems' cells, in the same bootstrap replicates as every other number (one multiset of worlds per replicate for both systems), so the interval is that of the paired difference, not of two marginal intervals subtracted by eye. p is the two-sided bootstrap p-value of a zero difference; "adjusted" is Holm's step-down adjustment over all ${comparisons.family} tested rows, and "differs" means the adjusted p is below ${formatNumber(1 - data.run.analysis.level, 2)}. EIMC differences code "no passing load" at the smallest tested load and a lower bound at the largest, so a difference with a censored side is a bound toward zero; two statuses censored on the same side are not comparable and not tested. Rows marked SCRIPTED compare scripted baselines: a check of the method, not a ranking of models.${exploratory ? ` Exploratory: fewer than ${threshold} paired worlds; no comparison here is confirmatory, and none is a winner claim.` : ''}`,
    },
    {
      kind: 'table',
      caption: `Paired differences A − B [pointwise ${level}% CI], ${comparisons.referenceSystem === null ? 'every pair of systems' : `against ${comparisons.referenceSystem}`}; Holm-adjusted over ${comparisons.family} tests.`,
      columns: [
        'Pair (A − B)',
        'Number',
        'A',
        'B',
        'Worlds',
        `A − B [${level}% CI]`,
        'p',
        'Holm p',
        'Verdict',
      ],
      rows: comparisons.rows.map((row) => [
        pairLabel(data, row),
        row.label,
        valueText(row, row.valueA, row.statusA),
        valueText(row, row.valueB, row.statusB),
        String(row.difference.worlds),
        formatEstimate(row.difference),
        formatNumber(row.pValue),
        formatNumber(row.adjustedPValue),
        verdictText(row),
      ]),
    },
  ];
}
