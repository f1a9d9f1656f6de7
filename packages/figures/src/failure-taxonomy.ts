import { chartPartOf, type RunChartData } from '@chi/analysis';
import { systemLabel } from '@chi/analysis/internal';
import type { FigureDefinition } from './figure-definition';
import {
  bottomLegend,
  bySystemLoadCondition,
  captionText,
  cellLabel,
  compareText,
  PANEL_HEIGHT,
  panelColumns,
  panelWidthFor,
  specOpening,
  systemOrder,
} from './figure-parts';

const PASS_COLORS = ['#2e7d32', '#81c784', '#1b5e20', '#a5d6a7'];
const FAIL_COLORS = [
  '#c62828',
  '#ef6c00',
  '#6a1b9a',
  '#f9a825',
  '#4e342e',
  '#ad1457',
  '#00838f',
  '#283593',
  '#9e9d24',
  '#5d4037',
  '#d84315',
  '#37474f',
];

/** Passing reasons in greens, failures in distinct non-green colours, in legend order. */
export function reasonColors(
  reasons: readonly string[],
  totals: ReadonlyMap<string, { pass: boolean }>,
): string[] {
  let pass = 0;
  let fail = 0;
  return reasons.map((reason) =>
    totals.get(reason)?.pass === true
      ? (PASS_COLORS[pass++ % PASS_COLORS.length] as string)
      : (FAIL_COLORS[fail++ % FAIL_COLORS.length] as string),
  );
}

/**
 * Figure: memory probes per outcome reason, stacked per load and condition, one panel per system
 * (passes at the bottom in greens; failures above them).
 */
export function failureTaxonomyFigure(data: RunChartData): FigureDefinition | null {
  if (chartPartOf(data, 'memory').taxonomy.length === 0) return null;
  const sorted = [...chartPartOf(data, 'memory').taxonomy].sort(bySystemLoadCondition);
  const cells = [...new Set(sorted.map((t) => cellLabel(t.load, t.condition)))];
  // reasons: passes first, then failures by total count, ties by name
  const totals = new Map<string, { pass: boolean; count: number }>();
  for (const t of chartPartOf(data, 'memory').taxonomy) {
    const prior = totals.get(t.reason) ?? { pass: t.pass, count: 0 };
    totals.set(t.reason, { pass: t.pass, count: prior.count + t.count });
  }
  const reasons = [...totals.entries()]
    .sort(
      ([ra, a], [rb, b]) =>
        Number(b.pass) - Number(a.pass) || b.count - a.count || compareText(ra, rb),
    )
    .map(([reason]) => reason);
  const aggregated = new Map<
    string,
    { system: string; cell: string; reason: string; pass: boolean; count: number }
  >();
  for (const t of sorted) {
    const system = systemLabel(data.run, t.systemId);
    const cell = cellLabel(t.load, t.condition);
    const key = `${system}\u0000${cell}\u0000${t.reason}`;
    const prior = aggregated.get(key) ?? { system, cell, reason: t.reason, pass: t.pass, count: 0 };
    aggregated.set(key, { ...prior, count: prior.count + t.count });
  }
  const rows = [...aggregated.values()];
  const ranked = rows.map((row) => ({ ...row, reasonRank: reasons.indexOf(row.reason) }));
  const title = 'Memory probes by outcome (failure taxonomy) per load';
  const subtitle =
    'Probe counts (all six strata, complete worlds) stacked by the one reason each probe received; passes (greens) at the bottom.';
  const systems = systemOrder(data).filter((s) => ranked.some((r) => r.system === s));
  const columns = panelColumns(systems.length);
  const spec = {
    ...specOpening(data, title, [subtitle], ranked),
    facet: { field: 'system', type: 'nominal', title: null, sort: systems },
    columns,
    resolve: { axis: { x: 'independent' } },
    spec: {
      width: panelWidthFor(columns),
      height: PANEL_HEIGHT,
      mark: { type: 'bar' },
      encoding: {
        x: {
          field: 'cell',
          type: 'nominal',
          title: 'Load and condition',
          sort: cells,
          // one line per word ("N=32" over "blank"): level labels never overlap their neighbours
          axis: { labelAngle: 0, labelExpr: "split(datum.label, ' ')", titleLimit: 0 },
        },
        y: {
          aggregate: 'sum',
          field: 'count',
          type: 'quantitative',
          title: 'Probes (count)',
          stack: 'zero',
        },
        color: {
          field: 'reason',
          type: 'nominal',
          title: 'Outcome',
          sort: reasons,
          scale: { domain: reasons, range: reasonColors(reasons, totals) },
          legend: bottomLegend('Outcome', 4),
        },
        order: { field: 'reasonRank', type: 'quantitative', sort: 'ascending' },
      },
    },
  };
  const total = rows.reduce((sum, r) => sum + r.count, 0);
  return {
    id: 'failure-taxonomy',
    svgPath: 'figures/failure-taxonomy.svg',
    title,
    description: `${title}: for each system and load, the count of memory probes per outcome reason, stacked; ${total} probes in total over complete worlds. Passing reasons are drawn first.`,
    caption: captionText(data, [
      'Every scored memory probe of a complete world receives exactly one reason (see traces/ for the per-probe record), so each bar totals the probes asked at that load. Counts per stratum are in the CSV.',
    ]),
    spec,
    columns: ['system', 'cell', 'reason', 'pass', 'count', 'reasonRank'],
    rows: ranked,
  };
}
