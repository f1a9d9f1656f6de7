import type { RunChartData } from '@chi/analysis';
import type { ComparisonQuantity, ComparisonRow } from '@chi/analysis/internal';
import { systemLabel } from '@chi/analysis/internal';
import type { FigureDefinition, FigureRow } from './figure-definition';
import { COLUMN_PX, captionText, pct, specOpening } from './figure-parts';

/** The panel of each quantity: its own x scale (units differ). */
export const COMPARISON_PANELS: Record<ComparisonQuantity, string> = {
  qualityScore: 'Q_M difference (unitless)',
  eimc: 'EIMC difference (memory load, items)',
  excessDivergence: 'Excess divergence difference (unitless)',
  behavior: 'Behavior indicator difference (share)',
};

/** The columns of `chart-data/comparisons.csv`, one row per compared number and pair. */
export const COMPARISON_COLUMNS = [
  'panel',
  'comparison',
  'systemA',
  'systemB',
  'evidence',
  'quantity',
  'label',
  'load',
  'tau',
  'checkpoint',
  'indicator',
  'valueA',
  'valueB',
  'statusA',
  'statusB',
  'censoring',
  'difference',
  'lower',
  'upper',
  'intervalNote',
  'worlds',
  'pValue',
  'adjustedPValue',
  'differsFamilyWise',
  'worldSet',
] as const;

/** The pair as tables name it: `A − B`, with SCRIPTED when either side is a scripted baseline. */
export function pairLabel(data: RunChartData, row: ComparisonRow): string {
  const pair = `${systemLabel(data.run, row.systemA)} − ${systemLabel(data.run, row.systemB)}`;
  return row.scripted ? `SCRIPTED ${pair}` : pair;
}

/** One CSV/figure row of a comparison. */
export function comparisonFigureRow(data: RunChartData, row: ComparisonRow): FigureRow {
  return {
    panel: COMPARISON_PANELS[row.quantity],
    comparison: `${pairLabel(data, row)}: ${row.label}`,
    systemA: row.systemA,
    systemB: row.systemB,
    evidence: row.scripted ? 'SCRIPTED' : 'live',
    quantity: row.quantity,
    label: row.label,
    load: row.load,
    tau: row.tau,
    checkpoint: row.checkpoint,
    indicator: row.indicator,
    valueA: row.valueA,
    valueB: row.valueB,
    statusA: row.statusA,
    statusB: row.statusB,
    censoring: row.censoring,
    difference: row.difference.estimate,
    lower: row.difference.lower,
    upper: row.difference.upper,
    intervalNote: row.difference.intervalNote,
    worlds: row.difference.worlds,
    pValue: row.pValue,
    adjustedPValue: row.adjustedPValue,
    differsFamilyWise: row.differsFamilyWise,
    worldSet: row.worldSeeds.join(' '),
  };
}

/**
 * Figure: a forest plot of the paired differences A − B, one panel per quantity (each with its
 * own x scale), a point at the difference and a bar over its pointwise interval; a filled point
 * where the difference holds after Holm's adjustment, hollow elsewhere; a rule at zero. Rows in
 * manifest order of the pairs: never sorted by size (scripted baselines are not ranked).
 */
export function comparisonsFigure(data: RunChartData): FigureDefinition | null {
  const comparisons = data.comparisons;
  if (comparisons === undefined || comparisons.rows.length === 0) return null;
  const rows = comparisons.rows.map((row) => comparisonFigureRow(data, row));
  const panels = Object.values(COMPARISON_PANELS).filter((panel) =>
    rows.some((row) => row.panel === panel),
  );
  const title = 'Paired differences between systems';
  const reference =
    comparisons.referenceSystem === null
      ? 'every pair of systems'
      : `every system against ${systemLabel(data.run, comparisons.referenceSystem)}`;
  const subtitle = [
    `A − B for ${reference}, paired by world over the worlds complete in both systems' cells; bars: pointwise ${pct(data)} bootstrap intervals; filled points: differs after Holm's adjustment over ${comparisons.family} tests.`,
  ];
  const caption = captionText(data, [
    `${title}: each row is one number of system A minus the same number of system B, both computed over the same worlds in every bootstrap replicate.`,
    'EIMC differences code "no passing load" at the smallest tested load and a lower bound at the largest, so a difference with a censored side is a bound toward zero; two statuses censored on the same side are not tested.',
    'Rows labelled SCRIPTED compare scripted baselines: a check of the method, not a ranking of models.',
  ]);
  const spec = {
    ...specOpening(data, title, subtitle, rows),
    facet: {
      row: {
        field: 'panel',
        type: 'nominal',
        title: null,
        sort: panels,
        header: { labelAngle: 0, labelOrient: 'top', labelAnchor: 'start', labelLimit: 900 },
      },
    },
    spec: {
      width: COLUMN_PX - 470,
      layer: [
        { mark: { type: 'rule', color: '#999' }, encoding: { x: { datum: 0 } } },
        {
          mark: { type: 'rule', color: '#222' },
          encoding: {
            y: {
              field: 'comparison',
              type: 'nominal',
              title: null,
              sort: null,
              axis: { labelLimit: 420 },
            },
            x: {
              field: 'lower',
              type: 'quantitative',
              title: 'A − B',
              axis: { tickCount: 6 },
            },
            x2: { field: 'upper' },
          },
        },
        {
          mark: { type: 'point', color: '#222', size: 50 },
          encoding: {
            y: { field: 'comparison', type: 'nominal', sort: null },
            x: { field: 'difference', type: 'quantitative' },
            fill: {
              condition: { test: 'datum.differsFamilyWise === true', value: '#222' },
              value: 'white',
            },
            opacity: { value: 1 },
          },
        },
      ],
    },
    resolve: { scale: { x: 'independent', y: 'independent' } },
  };
  return {
    id: 'comparisons',
    title,
    description: `${title}: ${rows.length} differences A − B (${reference}) with pointwise ${pct(data)} intervals, ${comparisons.family} of them tested with Holm's family-wise adjustment. Worlds per row are in the CSV.`,
    spec,
    svgPath: 'figures/comparisons.svg',
    caption,
    columns: COMPARISON_COLUMNS,
    rows,
  };
}
