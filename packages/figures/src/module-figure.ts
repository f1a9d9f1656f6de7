import type { ModuleEstimate, RunChartData } from '@chi/analysis';
import { systemLabel } from '@chi/analysis/internal';
import type { WorldScorer } from '@chi/experiment';
import { barEstimateSpec } from './estimate-chart';
import type { FigureDefinition, FigureRow } from './figure-definition';
import { captionText, pct, systemOrder } from './figure-parts';

/** The columns of a module figure's rows: exactly what it plots, in `chart-data/<id>.csv` terms. */
export const MODULE_FIGURE_COLUMNS = [
  'system',
  'estimand',
  'label',
  'estimate',
  'lower',
  'upper',
  'intervalOmittedReason',
  'worlds',
  'plannedWorlds',
] as const;

const MAX_TICK_INTERVALS = 6;

/**
 * The y axis of a module figure: [0, 1] for shares and rates, widened to whole units below zero
 * (a shift of -1..1) or above one, from every plotted estimate and bound. A scorer declares no
 * range, so the axis is read from its values; the same values give the same axis.
 */
export function moduleFigureAxis(estimates: readonly ModuleEstimate[]): {
  readonly domain: readonly [number, number];
  readonly ticks: readonly number[];
} {
  const values = estimates
    .flatMap((e) => [e.estimate, e.lower, e.upper])
    .filter((v): v is number => v !== null && Number.isFinite(v));
  const low = Math.min(0, Math.floor(Math.min(0, ...values)));
  const high = Math.max(1, Math.ceil(Math.max(1, ...values)));
  // the smallest of 0.2, 0.5, 1, 2, 5, 10, ... that needs at most MAX_TICK_INTERVALS intervals,
  // so every tick label is exact at the axis' one-decimal format
  let step = 0.2;
  for (let unit = 1; (high - low) / step > MAX_TICK_INTERVALS; unit *= 10)
    step =
      [0.5 * unit, unit, 2 * unit].find((s) => (high - low) / s <= MAX_TICK_INTERVALS) ?? 5 * unit;
  const lo = Math.floor(low / step) * step;
  const hi = Math.ceil(high / step) * step;
  const ticks = Array.from({ length: Math.round((hi - lo) / step) + 1 }, (_, index) =>
    Number((lo + index * step).toFixed(6)),
  );
  return { domain: [lo, hi], ticks };
}

function worldsText(estimates: readonly ModuleEstimate[]): string {
  const used = estimates.map((e) => e.worlds);
  const planned = estimates[0]?.plannedWorlds ?? 0;
  const lo = Math.min(...used);
  const hi = Math.max(...used);
  return `worlds used per estimate: ${lo === hi ? lo : `${lo}–${hi}`} of ${planned} planned (complete blocks only)`;
}

/** The plotted rows of a module figure, one per system and estimand, in {@link MODULE_FIGURE_COLUMNS}. */
function moduleFigureRows(data: RunChartData, estimates: readonly ModuleEstimate[]): FigureRow[] {
  return estimates.map((e) => ({
    system: systemLabel(data.run, e.systemId),
    estimand: e.column,
    label: e.label,
    estimate: e.estimate,
    lower: e.lower,
    upper: e.upper,
    intervalOmittedReason: e.intervalOmittedReason,
    worlds: e.worlds,
    plannedWorlds: e.plannedWorlds,
  }));
}

/**
 * The figure of one module experiment: its world-mean estimates with their world-cluster
 * bootstrap intervals, one panel per system (in manifest order, in the system's fixed colour), one
 * bar per estimand in the scorer's order; undefined estimates are labelled n/a, never drawn as
 * zero. Generic over any `AnyExperimentScorer` (`@chi/experiment`): built from the experiment's chart data
 * (`chart-data/<id>.csv`) alone, so `chi verify` rebuilds it. Null without estimates.
 */
export function moduleFigure(
  data: RunChartData,
  scorer: WorldScorer,
  estimates: readonly ModuleEstimate[],
): FigureDefinition | null {
  if (estimates.length === 0) return null;
  const id = scorer.experimentId;
  const rows = moduleFigureRows(data, estimates);
  const shown = new Set(rows.map((row) => row.system));
  const axis = moduleFigureAxis(estimates);
  const legend = scorer.estimands.map((e) => `${e.column}: ${e.label}`).join('; ');
  const denominators = worldsText(estimates);
  const noInterval = estimates.some((e) => e.lower === null || e.upper === null)
    ? ['No interval is drawn where fewer than two complete worlds (or no defined replicate) exist.']
    : [];
  const title = scorer.title;
  return {
    id: `experiment-${id}`,
    svgPath: `figures/experiment-${id}.svg`,
    title,
    description:
      `${title}: world means per system of ${legend}, with pointwise ${pct(data)} world-cluster bootstrap intervals. ${denominators}. ${noInterval.join(' ')}`.trim(),
    caption: captionText(data, [
      `${title}: world means over complete blocks with pointwise ${pct(data)} world-cluster bootstrap intervals (black bars), one panel per system; values from chart-data/${id}.csv.`,
      `Estimands: ${legend}.`,
      `Denominators: ${denominators}.`,
      ...noInterval,
      'Undefined values are labelled n/a, never drawn as zero.',
    ]),
    spec: barEstimateSpec(
      data,
      title,
      [`World means with pointwise ${pct(data)} intervals. ${legend}.`, denominators],
      rows,
      {
        facet: {
          field: 'system',
          title: null,
          order: systemOrder(data).filter((system) => shown.has(system)),
        },
        category: {
          field: 'estimand',
          title: null,
          order: scorer.estimands.map((e) => e.column),
          // upright estimand names: slanted ones of the rightmost panel overhang the column
          labelAngle: -90,
        },
        yTitle: 'World mean (units of the estimand)',
        yDomain: axis.domain,
        yTicks: axis.ticks,
      },
    ),
    columns: MODULE_FIGURE_COLUMNS,
    rows,
  };
}
