import type {
  BlockCounts,
  ChartData,
  HistoryDistance,
  IntervalEstimate,
  MemoryCondition,
  MemoryPoint,
} from './chart-data';
import { runEvidenceBanner, systemLabel } from './evidence-label';
import type { FigureSource } from './render-svg';

/** A plotted value: one CSV cell. */
export type FigureCell = string | number | boolean | null;

/** One figure of a release: its spec, the rows it plots (its chart data) and its caption. */
export interface FigureDefinition extends FigureSource {
  /** Path of the SVG inside the release, e.g. `figures/memory-capacity.svg`. */
  readonly svgPath: string;
  /** One-paragraph caption: what is plotted, units, denominators, missingness, caveats. */
  readonly caption: string;
  /** CSV header: the keys of every row, in order. */
  readonly columns: readonly string[];
  /** Exactly the values the figure plots. */
  readonly rows: readonly Readonly<Record<string, FigureCell>>[];
}

/** One plotted row of a figure. */
type FigureRow = Readonly<Record<string, FigureCell>>;

/** A piece of a vega-lite spec (a channel, a layer, a facet); vega-lite checks the whole spec. */
type SpecPart = Record<string, unknown>;

const FACTOR_LABELS = {
  r: 'r current retrieval',
  t: 't historical (as-of)',
  s: 's content and source',
  u: 'u authoritative update',
  i: 'i interference',
  oneMinusF: '1 − f (absent-key lures)',
} as const;

const CONDITION_LABELS: Record<MemoryCondition, string> = {
  notebook: 'notebook (evaluated)',
  blank: 'blank-notebook control',
  oracle: 'oracle-evidence control (in-context, not EIMC)',
};

const PRIMARY = 'Q_M of world-mean factors (primary)';
const WITHIN = 'mean within-world Q_M (different quantity)';
const DISTANCE_TITLE = 'Distance (unitless; difference −1 to 1)';
const Q_M_TITLE = 'Q_M (unitless, 0–1)';
const PANEL_WIDTH = 220;
/** Lines join only points that rest on the same world set. */
const WORLD_SET_DETAIL: SpecPart = { field: 'worldSet', type: 'nominal' };

/** Facet panel width: narrower with many systems so a row of panels stays near 1000 px. */
function panelWidth(data: ChartData): number {
  return Math.max(
    150,
    Math.min(PANEL_WIDTH, Math.floor(1000 / Math.max(1, data.run.systems.length))),
  );
}
const PANEL_HEIGHT = 180;
const CATEGORY_SCHEME = 'tableau10';
const VEGA_LITE_SCHEMA = 'https://vega.github.io/schema/vega-lite/v6.json';
/** Legend of a line chart whose series labels are long sentences. */
const BOTTOM_LEGEND = { orient: 'bottom', direction: 'vertical', labelLimit: 400 };

/** The CSV columns `estimateColumns` writes, in its order. */
const ESTIMATE_COLUMNS = [
  'estimate',
  'lower',
  'upper',
  'intervalNote',
  'worlds',
  'completeWorlds',
  'plannedWorlds',
] as const;

/** An estimate's CSV cells: the value, its interval and its world set (used / complete / planned). */
function estimateColumns(estimate: IntervalEstimate): Record<string, FigureCell> {
  return {
    estimate: estimate.estimate,
    lower: estimate.lower,
    upper: estimate.upper,
    intervalNote: estimate.intervalNote,
    worlds: estimate.worlds,
    completeWorlds: estimate.completeWorlds,
    plannedWorlds: estimate.plannedWorlds,
  };
}

/**
 * The world seeds of a set as one CSV cell (`11 12 14`, or `none`). A line is drawn only between
 * points with the same world set (vega-lite `detail`), so a curve never mixes world sets.
 */
function worldSetCell(seeds: readonly number[]): string {
  return seeds.length === 0 ? 'none' : seeds.join(' ');
}

function range(values: readonly number[]): string {
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  return lo === hi ? String(lo) : `${lo}–${hi}`;
}

/**
 * Summarises the world sets of the plotted estimates and the blocks of their cells:
 * `worlds used per point: 2 (complete in the cell: 3–4; planned: 4); incomplete blocks ...`.
 */
export function denominatorSummary(
  blocks: readonly BlockCounts[],
  estimates: readonly IntervalEstimate[],
): string {
  if (blocks.length === 0 || estimates.length === 0) return 'no cells';
  const incomplete = blocks.reduce((sum, b) => sum + b.incomplete, 0);
  const missing = blocks.reduce((sum, b) => sum + b.missing, 0);
  return `worlds used per point: ${range(estimates.map((e) => e.worlds))} (complete in the cell: ${range(estimates.map((e) => e.completeWorlds))}; planned: ${range(estimates.map((e) => e.plannedWorlds))}); incomplete blocks (excluded, published separately): ${incomplete}; missing blocks: ${missing}`;
}

function caveats(data: ChartData, estimates: readonly IntervalEstimate[]): string[] {
  const notes: string[] = [];
  if (estimates.some((e) => e.intervalNote === 'fewer_than_two_complete_worlds')) {
    notes.push('No interval is drawn where fewer than two complete worlds exist.');
  }
  if (estimates.some((e) => e.intervalNote === 'undefined_estimate' || e.estimate === null)) {
    notes.push('Undefined values (e.g. invalid trajectories) are shown as gaps, never as zero.');
  }
  const minWorlds = Math.min(...estimates.map((e) => e.worlds));
  if (estimates.length > 0 && minWorlds < data.run.analysis.exploratoryBelowWorlds) {
    notes.push(
      `Exploratory: fewer than ${data.run.analysis.exploratoryBelowWorlds} complete worlds; no comparison here is confirmatory.`,
    );
  }
  return notes;
}

function subtitleLines(data: ChartData, lines: readonly string[]): string[] {
  const banner = runEvidenceBanner(data.run);
  return banner === null ? [...lines] : [banner.toUpperCase(), ...lines];
}

function captionText(data: ChartData, parts: readonly string[]): string {
  const banner = runEvidenceBanner(data.run);
  return [...(banner === null ? [] : [`${banner}.`]), ...parts].join(' ');
}

/** What every figure spec opens with: schema, title (run banner first) and the plotted rows. */
function specOpening(
  data: ChartData,
  title: string,
  subtitle: readonly string[],
  rows: readonly FigureRow[],
): SpecPart {
  return {
    $schema: VEGA_LITE_SCHEMA,
    title: { text: title, subtitle: subtitleLines(data, subtitle), anchor: 'start' },
    data: { values: rows },
  };
}

/** The colour channel of an estimate chart; `field`, `type` and `sort` also colour the whiskers. */
interface ColorChannel {
  readonly field: string;
  readonly type: string;
  readonly sort?: readonly string[];
  readonly [property: string]: unknown;
}

/** What sets one chart of interval estimates apart; `estimateChartSpec` draws the rest. */
interface EstimateChart {
  /** Facet (and column count) of the panels; one column of panels per system unless given. */
  readonly panels?: SpecPart;
  readonly width: number;
  readonly height: number;
  /** Layers drawn beneath the estimates, e.g. reference rules. */
  readonly beneath?: readonly SpecPart[];
  /** `line`: a line with points per colour series; `bar`: a bar per x category. */
  readonly mark: 'line' | 'bar';
  readonly x: SpecPart;
  readonly yTitle: string;
  readonly yDomain: readonly [number, number];
  readonly color: ColorChannel;
  readonly strokeDash?: SpecPart;
  /** Splits lines by a field, e.g. the world set, so a line never joins different world sets. */
  readonly detail?: SpecPart;
}

/**
 * A faceted chart of the rows' `estimate` with `lower`–`upper` whiskers where both are valid.
 * Whiskers take their line's colour series; on bars, which are coloured by category, they are black.
 */
function estimateChartSpec(
  data: ChartData,
  title: string,
  subtitle: readonly string[],
  rows: readonly FigureRow[],
  chart: EstimateChart,
): SpecPart {
  const { field, type, sort } = chart.color;
  const whiskerColor =
    chart.mark === 'bar'
      ? { value: '#000' }
      : { field, type, ...(sort === undefined ? {} : { sort }) };
  return {
    ...specOpening(data, title, subtitle, rows),
    ...(chart.panels ?? { facet: { column: systemFacet(data) } }),
    spec: {
      width: chart.width,
      height: chart.height,
      layer: [
        ...(chart.beneath ?? []),
        {
          mark: chart.mark === 'line' ? { type: 'line', point: true, clip: true } : { type: 'bar' },
          encoding: {
            x: chart.x,
            y: {
              field: 'estimate',
              type: 'quantitative',
              title: chart.yTitle,
              scale: { domain: [...chart.yDomain] },
            },
            color: chart.color,
            ...(chart.strokeDash === undefined ? {} : { strokeDash: chart.strokeDash }),
            ...(chart.detail === undefined ? {} : { detail: chart.detail }),
          },
        },
        {
          transform: [{ filter: 'isValid(datum.lower) && isValid(datum.upper)' }],
          mark: { type: 'errorbar', ticks: true },
          encoding: {
            x: chart.x,
            // same title as the estimate layer, or vega-lite joins both into "title, lower"
            y: { field: 'lower', type: 'quantitative', title: chart.yTitle },
            y2: { field: 'upper' },
            color: whiskerColor,
          },
        },
      ],
    },
  };
}

/** What one figure of interval estimates states; `estimateFigure` adds denominators and caveats. */
interface EstimateFigure {
  readonly id: string;
  readonly title: string;
  /** The subtitle line above the denominators. */
  readonly subtitle: string;
  /** The description up to the denominators and caveats, which follow it. */
  readonly description: string;
  /** The caption's sentences before the denominators and caveats. */
  readonly caption: readonly string[];
  /** Denominators of the plotted points, stated in the subtitle, description and caption. */
  readonly denominators: string;
  /** Every plotted estimate: the caveats (no interval, gaps, exploratory) are read from these. */
  readonly estimates: readonly IntervalEstimate[];
  readonly columns: readonly string[];
  readonly rows: readonly FigureRow[];
  readonly chart: EstimateChart;
}

function estimateFigure(data: ChartData, figure: EstimateFigure): FigureDefinition {
  const { id, title, denominators, rows } = figure;
  const notes = caveats(data, figure.estimates);
  const spec = estimateChartSpec(data, title, [figure.subtitle, denominators], rows, figure.chart);
  return {
    id,
    svgPath: `figures/${id}.svg`,
    title,
    description: `${figure.description} ${denominators}. ${notes.join(' ')}`.trim(),
    caption: captionText(data, [...figure.caption, `Denominators: ${denominators}.`, ...notes]),
    spec,
    columns: figure.columns,
    rows,
  };
}

/** A grey horizontal reference line at `y`, e.g. a threshold. */
function referenceRule(y: number, options: { readonly dashed?: boolean } = {}): SpecPart {
  return {
    mark: {
      type: 'rule',
      color: '#999',
      ...(options.dashed === true ? { strokeDash: [2, 2] } : {}),
    },
    encoding: { y: { datum: y } },
  };
}

function loadAxis(loads: readonly number[]): SpecPart {
  return {
    field: 'load',
    type: 'quantitative',
    title: 'Load N (target keys, log2 scale)',
    // padded so the smallest and largest loads are not drawn on the frame
    scale: {
      type: 'log',
      base: 2,
      nice: false,
      domain: [(loads[0] ?? 1) / 1.3, (loads[loads.length - 1] ?? 1) * 1.3],
    },
    axis: { values: [...loads], format: 'd' },
  };
}

function checkpointAxis(title: string): SpecPart {
  return { field: 'checkpoint', type: 'ordinal', title, axis: { labelAngle: 0 } };
}

/** An x axis of named categories in the given order, labels slanted. */
function categoryAxis(field: string, order: readonly string[]): SpecPart {
  return {
    field,
    type: 'nominal',
    title: null,
    sort: order,
    axis: { labelAngle: -30, labelLimit: 200 },
  };
}

/** System labels in manifest order (not alphabetical), so every figure lists them the same way. */
function systemOrder(data: ChartData): string[] {
  return data.run.systems.map((s) => systemLabel(data.run, s.id));
}

function systemFacet(data: ChartData): SpecPart {
  return { field: 'system', type: 'nominal', title: 'System', sort: systemOrder(data) };
}

function notebookPoints(data: ChartData): MemoryPoint[] {
  return data.memory.filter((p) => p.condition === 'notebook');
}

function sortedLoads(points: readonly MemoryPoint[]): number[] {
  return [...new Set(points.map((p) => p.load))].sort((a, b) => a - b);
}

/** Order of cells by system id, then load, then condition (notebook, blank, oracle). */
function bySystemLoadCondition(
  a: { readonly systemId: string; readonly load: number; readonly condition: MemoryCondition },
  b: { readonly systemId: string; readonly load: number; readonly condition: MemoryCondition },
): number {
  return (
    compareText(a.systemId, b.systemId) ||
    a.load - b.load ||
    conditionOrder(a.condition) - conditionOrder(b.condition)
  );
}

function capacityFigure(data: ChartData): FigureDefinition | null {
  const points = notebookPoints(data);
  if (points.length === 0) return null;
  const series = (p: MemoryPoint) => [
    { quantity: PRIMARY, estimate: p.qualityScore },
    { quantity: WITHIN, estimate: p.meanWithinWorldQualityScore },
  ];
  const rows = points.flatMap((p) =>
    series(p).map(({ quantity, estimate }) => ({
      system: systemLabel(data.run, p.systemId),
      load: p.load,
      quantity,
      ...estimateColumns(estimate),
      worldSet: worldSetCell(p.worldSeeds),
    })),
  );
  const loads = sortedLoads(points);
  const taus = data.run.analysis.taus;
  const title = 'Memory capacity curve Q_M(N) per system';
  return estimateFigure(data, {
    id: 'memory-capacity',
    title,
    subtitle: `Solid: ${PRIMARY}; dashed: ${WITHIN}. Bars: pointwise ${pct(data)} bootstrap intervals. Rules: tau = ${taus.join(', ')}.`,
    description: `${title}. Q_M is unitless in [0, 1]; x is the number of target keys N on a log2 axis (${loads.join(', ')}).`,
    caption: [
      `Q_M of the equally weighted world-mean factors (primary estimand, solid) and the mean of each world's own Q_M (a different quantity, dashed) for the evaluated notebook condition, with pointwise ${pct(data)} cluster-bootstrap percentile intervals (${data.run.analysis.resamples} resamples of worlds, analysis seed ${data.run.analysis.seed}).`,
      `Grey rules mark tau = ${taus.join(', ')}; EIMC reads the largest tested load at or above tau.`,
    ],
    denominators: denominatorSummary(
      points.map((p) => p.blocks),
      points.flatMap((p) => series(p).map((s) => s.estimate)),
    ),
    estimates: points.flatMap((p) => series(p).map((s) => s.estimate)),
    columns: ['system', 'load', 'quantity', ...ESTIMATE_COLUMNS, 'worldSet'],
    rows,
    chart: {
      width: panelWidth(data),
      height: PANEL_HEIGHT,
      beneath: taus.map((tau) => referenceRule(tau, { dashed: true })),
      mark: 'line',
      detail: WORLD_SET_DETAIL,
      x: loadAxis(loads),
      yTitle: Q_M_TITLE,
      yDomain: [0, 1],
      color: {
        field: 'quantity',
        type: 'nominal',
        title: 'Quantity',
        scale: { range: ['#1f4e79', '#c55a11'] },
        legend: BOTTOM_LEGEND,
      },
      strokeDash: {
        field: 'quantity',
        type: 'nominal',
        legend: null,
        scale: {
          range: [
            [1, 0],
            [5, 3],
          ],
        },
      },
    },
  });
}

/** Code-unit order: unlike localeCompare, identical on every ICU version. */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function pct(data: ChartData): string {
  return `${Math.round(data.run.analysis.level * 100)}%`;
}

function componentsFigure(data: ChartData): FigureDefinition | null {
  const points = notebookPoints(data);
  if (points.length === 0) return null;
  const loads = sortedLoads(points);
  const rows = points.flatMap((p) =>
    (Object.keys(FACTOR_LABELS) as (keyof typeof FACTOR_LABELS)[]).map((factor) => ({
      system: systemLabel(data.run, p.systemId),
      load: p.load,
      factor: FACTOR_LABELS[factor],
      ...estimateColumns(p.factors[factor]),
      numerator:
        factor === 'oneMinusF'
          ? p.strata.f.denominator - p.strata.f.numerator
          : p.strata[factor].numerator,
      denominator: factor === 'oneMinusF' ? p.strata.f.denominator : p.strata[factor].denominator,
      worldSet: worldSetCell(p.worldSeeds),
    })),
  );
  const title = 'The six Q_M component curves per load';
  return estimateFigure(data, {
    id: 'memory-components',
    title,
    subtitle: `World-mean factor (unitless, 0–1) by load; bars: pointwise ${pct(data)} bootstrap intervals. Q_M ≥ tau does not imply every factor ≥ tau.`,
    description: `${title}: r, t, s, u, i and 1 − f as world means (unitless, 0 to 1) by load N (${loads.join(', ')}), one colour per system.`,
    caption: [
      `Every factor of Q_M for the notebook condition: world-mean r, t, s, u, i and 1 − f with pointwise ${pct(data)} intervals. Pooled numerators and denominators are in the CSV and the tables below.`,
    ],
    denominators: denominatorSummary(
      points.map((p) => p.blocks),
      points.flatMap((p) => Object.values(p.factors)),
    ),
    estimates: points.flatMap((p) => Object.values(p.factors)),
    columns: [
      'system',
      'load',
      'factor',
      ...ESTIMATE_COLUMNS,
      'numerator',
      'denominator',
      'worldSet',
    ],
    rows,
    chart: {
      panels: {
        facet: {
          field: 'factor',
          type: 'nominal',
          title: 'Component',
          sort: Object.values(FACTOR_LABELS),
        },
        columns: 3,
      },
      width: PANEL_WIDTH,
      height: 140,
      mark: 'line',
      detail: WORLD_SET_DETAIL,
      x: loadAxis(loads),
      yTitle: 'World-mean factor (0–1)',
      yDomain: [0, 1],
      color: {
        field: 'system',
        type: 'nominal',
        title: 'System',
        sort: systemOrder(data),
        scale: { scheme: CATEGORY_SCHEME },
      },
    },
  });
}

function controlsFigure(data: ChartData): FigureDefinition | null {
  const controls = data.memory.filter((p) => p.condition !== 'notebook');
  if (controls.length === 0) return null;
  const controlLoads = new Set(controls.map((p) => p.load));
  const points = data.memory.filter((p) => controlLoads.has(p.load)).sort(bySystemLoadCondition);
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
    subtitle: `Q_M of world-mean factors (unitless, 0–1); bars: pointwise ${pct(data)} intervals. The blank control tests dependence on the notebook; the oracle control is in-context and is not EIMC.`,
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
      width: 150,
      height: PANEL_HEIGHT,
      mark: 'bar',
      x: categoryAxis('condition', order),
      yTitle: Q_M_TITLE,
      yDomain: [0, 1],
      color: {
        field: 'condition',
        type: 'nominal',
        legend: null,
        sort: order,
        scale: { range: ['#1f4e79', '#a5a5a5', '#70ad47'] },
      },
    },
  });
}

function conditionOrder(condition: MemoryCondition): number {
  return condition === 'notebook' ? 0 : condition === 'blank' ? 1 : 2;
}

function historyRateFigure(
  data: ChartData,
  which: 'accuracy' | 'unknownRate',
): FigureDefinition | null {
  if (data.history.length === 0) return null;
  const rows = data.history.map((p) => ({
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
  const histories = ['A', 'B', 'A2'];
  return estimateFigure(data, {
    id: isAccuracy ? 'history-accuracy' : 'history-unknown',
    title,
    subtitle: `Histories A and B carry opposite evidence; A2 repeats A. Bars: pointwise ${pct(data)} intervals.`,
    description: `${title} for histories A, B and A2 at checkpoints 0 to 4, per system; y is a share from 0 to 1. Invalid decisions are counted separately (see table).`,
    caption: [
      isAccuracy
        ? "Share of the four environment decisions equal to the warranted answer (unknown at checkpoint 0, the history's evidence at 1–3, the corrected rule at 4), world mean per history."
        : 'Share of the four decisions given as an explicit unknown, world mean per history; unknown is warranted at checkpoint 0 only.',
      'Invalid decisions are reported in the table, not counted as answers.',
    ],
    denominators: denominatorSummary(
      data.history.map((p) => p.blocks),
      data.history.map((p) => p[which]),
    ),
    estimates: data.history.map((p) => p[which]),
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
      width: panelWidth(data),
      height: PANEL_HEIGHT,
      mark: 'line',
      x: checkpointAxis('Checkpoint (0 baseline, 1 ingest, 2–3 neutral, 4 correction)'),
      yTitle: isAccuracy ? 'Accuracy (share of 4 decisions, 0–1)' : 'Explicit-unknown rate (0–1)',
      yDomain: [0, 1],
      color: {
        field: 'history',
        type: 'nominal',
        title: 'History',
        sort: histories,
        scale: { scheme: CATEGORY_SCHEME },
      },
      strokeDash: { field: 'history', type: 'nominal', sort: histories, legend: null },
    },
  });
}

function historyDistanceFigure(data: ChartData): FigureDefinition | null {
  if (data.historyDistances.length === 0) return null;
  const quantities = ['D(A,B)', 'D(A,A2)', 'divergence D(A,B) − D(A,A2)'] as const;
  const series = (d: HistoryDistance) => [
    { quantity: quantities[0], estimate: d.distanceAB },
    { quantity: quantities[1], estimate: d.distanceAA2 },
    { quantity: quantities[2], estimate: d.divergence },
  ];
  const rows = data.historyDistances.flatMap((d) =>
    series(d).map(({ quantity, estimate }) => ({
      system: systemLabel(data.run, d.systemId),
      checkpoint: d.checkpoint,
      quantity,
      ...estimateColumns(estimate),
      worldSet: worldSetCell(d.worldSeeds),
    })),
  );
  const estimates = data.historyDistances.flatMap((d) => series(d).map((s) => s.estimate));
  const title = 'History: distances between histories and experience divergence';
  return estimateFigure(data, {
    id: 'history-distance',
    title,
    subtitle: `Mean absolute coordinate difference of decision vectors (A = 0, unknown = 0.5, B = 1), unitless. Invalid vectors give null, not agreement. Bars: pointwise ${pct(data)} intervals.`,
    description: `${title}: D(A,B), D(A,A2) and their difference per checkpoint 0 to 4, per system.`,
    caption: [
      "Distance between the decision vectors of histories A and B, of the same-history control pair A and A2, and the experience divergence D(A,B) − D(A,A2). All three numbers of a checkpoint use one world set: the complete worlds whose A, B and A2 vectors are all fully valid there, so the divergence is exactly D(A,B) − D(A,A2) as drawn; where no world qualifies the values are null (a gap). Lines join only checkpoints with the same world set. A2's requests are byte-identical to A's, so only sampling noise makes D(A,A2) positive: a deterministic system (such as the scripted reference systems) has D(A,A2) = 0.",
    ],
    denominators: denominatorSummary(
      data.historyDistances.map(
        (d) =>
          data.history.find((h) => h.systemId === d.systemId)?.blocks ?? {
            planned: 0,
            complete: 0,
            incomplete: 0,
            missing: 0,
          },
      ),
      estimates,
    ),
    estimates,
    columns: ['system', 'checkpoint', 'quantity', ...ESTIMATE_COLUMNS, 'worldSet'],
    rows,
    chart: {
      width: panelWidth(data),
      height: PANEL_HEIGHT,
      beneath: [referenceRule(0)],
      mark: 'line',
      detail: WORLD_SET_DETAIL,
      x: checkpointAxis('Checkpoint'),
      yTitle: DISTANCE_TITLE,
      yDomain: [-1, 1],
      color: {
        field: 'quantity',
        type: 'nominal',
        title: 'Quantity',
        sort: quantities,
        scale: { range: ['#1f4e79', '#a5a5a5', '#c00000'] },
        legend: BOTTOM_LEGEND,
      },
    },
  });
}

function behaviorFigure(data: ChartData): FigureDefinition | null {
  if (data.behavior.length === 0) return null;
  const labels = {
    R: 'R reasoning',
    C: 'C next-action choice',
    A: 'A framing (accuracy)',
    I: 'I integration',
    'A-frame-change': 'A frame-induced change (rate)',
  } as const;
  const order = Object.values(labels);
  const rows = data.behavior.map((p) => ({
    system: systemLabel(data.run, p.systemId),
    indicator: labels[p.indicator],
    ...estimateColumns(p.value),
    numerator: p.pooled.numerator,
    denominator: p.pooled.denominator,
    invalid: p.invalid.numerator,
  }));
  const title = 'Behavioral task indicators';
  return estimateFigure(data, {
    id: 'behavior',
    title,
    subtitle: `Task accuracy (0–1) for R, C, A, I and the rate of matched A pairs whose choice changed with the frame (a stronger framing effect is not a better score). Bars: pointwise ${pct(data)} intervals.`,
    description: `${title}: world-mean accuracy on R (8 items), C (4), A (8) and I (4) per world, and the frame-induced change rate of the 4 matched A pairs, per system. These are partial task indicators, not validated axis scores.`,
    caption: [
      'Partial task indicators, not validated full-axis capacity scores. C probes information-seeking choice, not self-generated goals; A reports choices, not feelings.',
    ],
    denominators: denominatorSummary(
      data.behavior.map((p) => p.blocks),
      data.behavior.map((p) => p.value),
    ),
    estimates: data.behavior.map((p) => p.value),
    columns: ['system', 'indicator', ...ESTIMATE_COLUMNS, 'numerator', 'denominator', 'invalid'],
    rows,
    chart: {
      width: 170,
      height: PANEL_HEIGHT,
      mark: 'bar',
      x: categoryAxis('indicator', order),
      yTitle: 'Share (unitless, 0–1)',
      yDomain: [0, 1],
      color: {
        field: 'indicator',
        type: 'nominal',
        legend: null,
        sort: order,
        scale: { scheme: CATEGORY_SCHEME },
      },
    },
  });
}

/** Label of a memory cell on a load axis: `N=64`, `N=32 blank`. */
export function cellLabel(load: number, condition: MemoryCondition): string {
  return condition === 'notebook' ? `N=${load}` : `N=${load} ${condition}`;
}

function taxonomyFigure(data: ChartData): FigureDefinition | null {
  if (data.taxonomy.length === 0) return null;
  const sorted = [...data.taxonomy].sort(bySystemLoadCondition);
  const cells = [...new Set(sorted.map((t) => cellLabel(t.load, t.condition)))];
  // reasons: passes first, then failures by total count, ties by name
  const totals = new Map<string, { pass: boolean; count: number }>();
  for (const t of data.taxonomy) {
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
    'Probe counts (all six strata, complete worlds) stacked by the one reason each probe received; passes at the bottom.';
  const spec = {
    ...specOpening(data, title, [subtitle], ranked),
    facet: { column: systemFacet(data) },
    spec: {
      width: panelWidth(data),
      height: PANEL_HEIGHT,
      mark: { type: 'bar' },
      encoding: {
        x: {
          field: 'cell',
          type: 'nominal',
          title: 'Load and condition',
          sort: cells,
          axis: { labelAngle: -30 },
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
          legend: { orient: 'right', labelLimit: 300 },
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
function reasonColors(
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

const RESOURCE_METRICS = [
  'Tokens (prompt + completion, count)',
  'Cost (USD)',
  'Median latency (ms)',
] as const;
/** Short y titles: vega estimates text width generously, and a long rotated title pads the panel. */
const RESOURCE_UNITS = ['tokens', 'USD', 'ms'] as const;

function resourcesFigure(data: ChartData): FigureDefinition | null {
  if (data.resources.length === 0) return null;
  const rows = data.resources.flatMap((r) => {
    const cell = r.load === null ? r.experiment : `${r.experiment} N=${r.load}`;
    const system = systemLabel(data.run, r.systemId);
    return [
      {
        system,
        cell,
        metric: RESOURCE_METRICS[0],
        value: r.promptTokens + r.completionTokens,
        requests: r.requests,
      },
      { system, cell, metric: RESOURCE_METRICS[1], value: r.costUsd, requests: r.requests },
      { system, cell, metric: RESOURCE_METRICS[2], value: r.latencyMsMedian, requests: r.requests },
    ];
  });
  const cells = [...new Set(rows.map((r) => r.cell))];
  const title = 'Resource costs per experiment and load';
  const subtitle =
    'All attempts of the run, including incomplete blocks and failures. Token sums exclude requests that reported no usage (see table).';
  const spec = {
    ...specOpening(data, title, [subtitle], rows),
    vconcat: RESOURCE_METRICS.map((metric, index) => ({
      width: 520,
      height: 110,
      title: { text: metric, anchor: 'start', fontSize: 12 },
      transform: [{ filter: { field: 'metric', equal: metric } }],
      mark: { type: 'bar' },
      encoding: {
        x: {
          field: 'cell',
          type: 'nominal',
          title: 'Experiment and load',
          sort: cells,
          axis: { labelAngle: -30 },
        },
        xOffset: { field: 'system', type: 'nominal' },
        y: {
          field: 'value',
          type: 'quantitative',
          title: RESOURCE_UNITS[index],
          axis: { format: '~g' },
          scale: { zero: true },
        },
        color: {
          field: 'system',
          type: 'nominal',
          title: 'System',
          scale: { scheme: CATEGORY_SCHEME },
        },
      },
    })),
  };
  return {
    id: 'resources',
    svgPath: 'figures/resources.svg',
    title,
    description: `${title}: total prompt plus completion tokens, total USD charged and median request latency in milliseconds, per system and experiment cell.`,
    caption: captionText(data, [
      'Tokens and USD are totals over every attempt of the cell, as reported by the endpoint (USD: charged or retained reservation); latency is the median per request. Scripted systems cost nothing and report no tokens.',
    ]),
    spec,
    columns: ['system', 'cell', 'metric', 'value', 'requests'],
    rows,
  };
}

/**
 * Every figure of a release, built from the chart data alone (so `chi verify` can rebuild them),
 * in report order. Figures without data (e.g. no history experiment in the run) are left out.
 */
export function buildFigures(data: ChartData): FigureDefinition[] {
  return [
    capacityFigure(data),
    componentsFigure(data),
    controlsFigure(data),
    historyRateFigure(data, 'accuracy'),
    historyRateFigure(data, 'unknownRate'),
    historyDistanceFigure(data),
    behaviorFigure(data),
    taxonomyFigure(data),
    resourcesFigure(data),
  ].filter((figure): figure is FigureDefinition => figure !== null);
}
