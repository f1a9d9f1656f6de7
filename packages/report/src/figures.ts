import type { TopLevelSpec } from 'vega-lite';
import type {
  BlockCounts,
  ChartData,
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
const PANEL_WIDTH = 220;

/** Facet panel width: narrower with many systems so a row of panels stays near 1000 px. */
function panelWidth(data: ChartData): number {
  return Math.max(
    150,
    Math.min(PANEL_WIDTH, Math.floor(1000 / Math.max(1, data.run.systems.length))),
  );
}
const PANEL_HEIGHT = 180;
const CATEGORY_SCHEME = 'tableau10';

function estimateColumns(prefix: string, estimate: IntervalEstimate): Record<string, FigureCell> {
  return {
    [`${prefix}estimate`]: estimate.estimate,
    [`${prefix}lower`]: estimate.lower,
    [`${prefix}upper`]: estimate.upper,
    [`${prefix}intervalNote`]: estimate.intervalNote,
    [`${prefix}worlds`]: estimate.worlds,
  };
}

/** Summarises block counts of the plotted cells: `complete worlds per point 3–4 of 4 planned; ...`. */
export function denominatorSummary(blocks: readonly BlockCounts[]): string {
  if (blocks.length === 0) return 'no cells';
  const complete = blocks.map((b) => b.complete);
  const planned = blocks.map((b) => b.planned);
  const range = (values: number[]): string => {
    const lo = Math.min(...values);
    const hi = Math.max(...values);
    return lo === hi ? String(lo) : `${lo}–${hi}`;
  };
  const incomplete = blocks.reduce((sum, b) => sum + b.incomplete, 0);
  const missing = blocks.reduce((sum, b) => sum + b.missing, 0);
  return `complete worlds per point: ${range(complete)} of ${range(planned)} planned; incomplete blocks (excluded, published separately): ${incomplete}; missing blocks: ${missing}`;
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

function intervalLayer(
  x: Record<string, unknown>,
  yTitle: string,
  color: Record<string, unknown> | null,
  extra: Record<string, unknown> = {},
) {
  return {
    transform: [{ filter: 'isValid(datum.lower) && isValid(datum.upper)' }],
    mark: { type: 'errorbar', ticks: true },
    encoding: {
      x,
      // same title as the point layer, or vega-lite joins both into "title, lower"
      y: { field: 'lower', type: 'quantitative', title: yTitle },
      y2: { field: 'upper' },
      ...(color === null ? {} : { color }),
      ...extra,
    },
  };
}

function loadAxis(loads: readonly number[]): Record<string, unknown> {
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

/** Systems in manifest order (not alphabetical), so every figure lists them the same way. */
function systemFacet(data: ChartData): Record<string, unknown> {
  return {
    field: 'system',
    type: 'nominal',
    title: 'System',
    sort: data.run.systems.map((s) => systemLabel(data.run, s.id)),
  };
}

function notebookPoints(data: ChartData): MemoryPoint[] {
  return data.memory.filter((p) => p.condition === 'notebook');
}

function capacityFigure(data: ChartData): FigureDefinition | null {
  const points = notebookPoints(data);
  if (points.length === 0) return null;
  const rows = points.flatMap((p) => [
    {
      system: systemLabel(data.run, p.systemId),
      load: p.load,
      quantity: PRIMARY,
      ...estimateColumns('', p.qualityScore),
      completeWorlds: p.blocks.complete,
      plannedWorlds: p.blocks.planned,
    },
    {
      system: systemLabel(data.run, p.systemId),
      load: p.load,
      quantity: WITHIN,
      ...estimateColumns('', p.meanWithinWorldQualityScore),
      completeWorlds: p.blocks.complete,
      plannedWorlds: p.blocks.planned,
    },
  ]);
  const loads = [...new Set(points.map((p) => p.load))].sort((a, b) => a - b);
  const taus = data.run.analysis.taus;
  const denominators = denominatorSummary(points.map((p) => p.blocks));
  const notes = caveats(
    data,
    points.flatMap((p) => [p.qualityScore, p.meanWithinWorldQualityScore]),
  );
  const title = 'Memory capacity curve Q_M(N) per system';
  const spec = {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: {
      text: title,
      subtitle: subtitleLines(data, [
        `Solid: ${PRIMARY}; dashed: ${WITHIN}. Bars: pointwise ${pct(data)} bootstrap intervals. Rules: tau = ${taus.join(', ')}.`,
        denominators,
      ]),
      anchor: 'start',
    },
    data: { values: rows },
    facet: { column: systemFacet(data) },
    spec: {
      width: panelWidth(data),
      height: PANEL_HEIGHT,
      layer: [
        ...taus.map((tau) => ({
          mark: { type: 'rule', color: '#999', strokeDash: [2, 2] },
          encoding: { y: { datum: tau } },
        })),
        {
          mark: { type: 'line', point: true, clip: true },
          encoding: {
            x: loadAxis(loads),
            y: {
              field: 'estimate',
              type: 'quantitative',
              title: 'Q_M (unitless, 0–1)',
              scale: { domain: [0, 1] },
            },
            color: {
              field: 'quantity',
              type: 'nominal',
              title: 'Quantity',
              scale: { range: ['#1f4e79', '#c55a11'] },
              legend: { orient: 'bottom', direction: 'vertical', labelLimit: 400 },
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
        },
        intervalLayer(loadAxis(loads), 'Q_M (unitless, 0–1)', {
          field: 'quantity',
          type: 'nominal',
        }),
      ],
    },
  };
  return {
    id: 'memory-capacity',
    svgPath: 'figures/memory-capacity.svg',
    title,
    description:
      `${title}. Q_M is unitless in [0, 1]; x is the number of target keys N on a log2 axis (${loads.join(', ')}). ${denominators}. ${notes.join(' ')}`.trim(),
    caption: captionText(data, [
      `Q_M of the equally weighted world-mean factors (primary estimand, solid) and the mean of each world's own Q_M (a different quantity, dashed) for the evaluated notebook condition, with pointwise ${pct(data)} cluster-bootstrap percentile intervals (${data.run.analysis.resamples} resamples of worlds, analysis seed ${data.run.analysis.seed}).`,
      `Grey rules mark tau = ${taus.join(', ')}; EIMC reads the largest tested load at or above tau.`,
      `Denominators: ${denominators}.`,
      ...notes,
    ]),
    spec: spec as unknown as TopLevelSpec,
    columns: [
      'system',
      'load',
      'quantity',
      'estimate',
      'lower',
      'upper',
      'intervalNote',
      'worlds',
      'completeWorlds',
      'plannedWorlds',
    ],
    rows,
  };
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
  const loads = [...new Set(points.map((p) => p.load))].sort((a, b) => a - b);
  const rows = points.flatMap((p) =>
    (Object.keys(FACTOR_LABELS) as (keyof typeof FACTOR_LABELS)[]).map((factor) => ({
      system: systemLabel(data.run, p.systemId),
      load: p.load,
      factor: FACTOR_LABELS[factor],
      ...estimateColumns('', p.factors[factor]),
      numerator:
        factor === 'oneMinusF'
          ? p.strata.f.denominator - p.strata.f.numerator
          : p.strata[factor].numerator,
      denominator: factor === 'oneMinusF' ? p.strata.f.denominator : p.strata[factor].denominator,
    })),
  );
  const denominators = denominatorSummary(points.map((p) => p.blocks));
  const notes = caveats(
    data,
    points.flatMap((p) => Object.values(p.factors)),
  );
  const title = 'The six Q_M component curves per load';
  const spec = {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: {
      text: title,
      subtitle: subtitleLines(data, [
        `World-mean factor (unitless, 0–1) by load; bars: pointwise ${pct(data)} bootstrap intervals. Q_M ≥ tau does not imply every factor ≥ tau.`,
        denominators,
      ]),
      anchor: 'start',
    },
    data: { values: rows },
    facet: {
      field: 'factor',
      type: 'nominal',
      title: 'Component',
      sort: Object.values(FACTOR_LABELS),
    },
    columns: 3,
    spec: {
      width: PANEL_WIDTH,
      height: 140,
      layer: [
        {
          mark: { type: 'line', point: true, clip: true },
          encoding: {
            x: loadAxis(loads),
            y: {
              field: 'estimate',
              type: 'quantitative',
              title: 'World-mean factor (0–1)',
              scale: { domain: [0, 1] },
            },
            color: {
              field: 'system',
              type: 'nominal',
              title: 'System',
              sort: systemFacet(data).sort,
              scale: { scheme: CATEGORY_SCHEME },
            },
          },
        },
        intervalLayer(loadAxis(loads), 'World-mean factor (0–1)', {
          field: 'system',
          type: 'nominal',
          sort: systemFacet(data).sort,
        }),
      ],
    },
  };
  return {
    id: 'memory-components',
    svgPath: 'figures/memory-components.svg',
    title,
    description:
      `${title}: r, t, s, u, i and 1 − f as world means (unitless, 0 to 1) by load N (${loads.join(', ')}), one colour per system. ${denominators}. ${notes.join(' ')}`.trim(),
    caption: captionText(data, [
      `Every factor of Q_M for the notebook condition: world-mean r, t, s, u, i and 1 − f with pointwise ${pct(data)} intervals. Pooled numerators and denominators are in the CSV and the tables below.`,
      `Denominators: ${denominators}.`,
      ...notes,
    ]),
    spec: spec as unknown as TopLevelSpec,
    columns: [
      'system',
      'load',
      'factor',
      'estimate',
      'lower',
      'upper',
      'intervalNote',
      'worlds',
      'numerator',
      'denominator',
    ],
    rows,
  };
}

function controlsFigure(data: ChartData): FigureDefinition | null {
  const controls = data.memory.filter((p) => p.condition !== 'notebook');
  if (controls.length === 0) return null;
  const controlLoads = new Set(controls.map((p) => p.load));
  const points = data.memory
    .filter((p) => controlLoads.has(p.load))
    .sort(
      (a, b) =>
        compareText(a.systemId, b.systemId) ||
        a.load - b.load ||
        conditionOrder(a.condition) - conditionOrder(b.condition),
    );
  const rows = points.map((p) => ({
    system: systemLabel(data.run, p.systemId),
    load: p.load,
    condition: CONDITION_LABELS[p.condition],
    ...estimateColumns('', p.qualityScore),
    completeWorlds: p.blocks.complete,
    plannedWorlds: p.blocks.planned,
  }));
  const loadsText = [...controlLoads].sort((a, b) => a - b).join(', ');
  const denominators = denominatorSummary(points.map((p) => p.blocks));
  const notes = caveats(
    data,
    points.map((p) => p.qualityScore),
  );
  const title = `Controls at N = ${loadsText} beside the N = ${loadsText} result`;
  const order = (['notebook', 'blank', 'oracle'] as const).map((c) => CONDITION_LABELS[c]);
  const x = {
    field: 'condition',
    type: 'nominal',
    title: null,
    sort: order,
    axis: { labelAngle: -30, labelLimit: 200 },
  };
  const spec = {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: {
      text: title,
      subtitle: subtitleLines(data, [
        `Q_M of world-mean factors (unitless, 0–1); bars: pointwise ${pct(data)} intervals. The blank control tests dependence on the notebook; the oracle control is in-context and is not EIMC.`,
        denominators,
      ]),
      anchor: 'start',
    },
    data: { values: rows },
    facet: { column: systemFacet(data) },
    spec: {
      width: 150,
      height: PANEL_HEIGHT,
      layer: [
        {
          mark: { type: 'bar' },
          encoding: {
            x,
            y: {
              field: 'estimate',
              type: 'quantitative',
              title: 'Q_M (unitless, 0–1)',
              scale: { domain: [0, 1] },
            },
            color: {
              field: 'condition',
              type: 'nominal',
              legend: null,
              sort: order,
              scale: { range: ['#1f4e79', '#a5a5a5', '#70ad47'] },
            },
          },
        },
        intervalLayer(x, 'Q_M (unitless, 0–1)', null, { color: { value: '#000' } }),
      ],
    },
  };
  return {
    id: 'memory-controls',
    svgPath: 'figures/memory-controls.svg',
    title,
    description:
      `${title}: Q_M (unitless, 0 to 1) of the evaluated notebook condition, the blank-notebook reset control and the oracle-evidence control on the same blind questions, per system. ${denominators}. ${notes.join(' ')}`.trim(),
    caption: captionText(data, [
      `Q_M at N = ${loadsText} for the evaluated notebook system, the blank-notebook reset control (tests dependence on supplied evidence; not a test of an autonomous memory system) and the oracle-evidence control (original records in context: tests solvability; not EIMC).`,
      `Denominators: ${denominators}.`,
      ...notes,
    ]),
    spec: spec as unknown as TopLevelSpec,
    columns: [
      'system',
      'load',
      'condition',
      'estimate',
      'lower',
      'upper',
      'intervalNote',
      'worlds',
      'completeWorlds',
      'plannedWorlds',
    ],
    rows,
  };
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
    ...estimateColumns('', p[which]),
    invalidDecisions: p.invalid.numerator,
    decisions: p.invalid.denominator,
  }));
  const isAccuracy = which === 'accuracy';
  const title = isAccuracy
    ? 'History: task accuracy per checkpoint'
    : 'History: explicit-unknown rate per checkpoint';
  const yTitle = isAccuracy
    ? 'Accuracy (share of 4 decisions, 0–1)'
    : 'Explicit-unknown rate (0–1)';
  const denominators = denominatorSummary(data.history.map((p) => p.blocks));
  const notes = caveats(
    data,
    data.history.map((p) => p[which]),
  );
  const checkpointAxis = {
    field: 'checkpoint',
    type: 'ordinal',
    title: 'Checkpoint (0 baseline, 1 ingest, 2–3 neutral, 4 correction)',
    axis: { labelAngle: 0 },
  };
  const spec = {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: {
      text: title,
      subtitle: subtitleLines(data, [
        `Histories A and B carry opposite evidence; A2 repeats A. Bars: pointwise ${pct(data)} intervals.`,
        denominators,
      ]),
      anchor: 'start',
    },
    data: { values: rows },
    facet: { column: systemFacet(data) },
    spec: {
      width: panelWidth(data),
      height: PANEL_HEIGHT,
      layer: [
        {
          mark: { type: 'line', point: true, clip: true },
          encoding: {
            x: checkpointAxis,
            y: {
              field: 'estimate',
              type: 'quantitative',
              title: yTitle,
              scale: { domain: [0, 1] },
            },
            color: {
              field: 'history',
              type: 'nominal',
              title: 'History',
              sort: ['A', 'B', 'A2'],
              scale: { scheme: CATEGORY_SCHEME },
            },
            strokeDash: { field: 'history', type: 'nominal', sort: ['A', 'B', 'A2'], legend: null },
          },
        },
        intervalLayer(checkpointAxis, yTitle, {
          field: 'history',
          type: 'nominal',
          sort: ['A', 'B', 'A2'],
        }),
      ],
    },
  };
  const id = isAccuracy ? 'history-accuracy' : 'history-unknown';
  return {
    id,
    svgPath: `figures/${id}.svg`,
    title,
    description:
      `${title} for histories A, B and A2 at checkpoints 0 to 4, per system; y is a share from 0 to 1. Invalid decisions are counted separately (see table). ${denominators}. ${notes.join(' ')}`.trim(),
    caption: captionText(data, [
      isAccuracy
        ? "Share of the four environment decisions equal to the warranted answer (unknown at checkpoint 0, the history's evidence at 1–3, the corrected rule at 4), world mean per history."
        : 'Share of the four decisions given as an explicit unknown, world mean per history; unknown is warranted at checkpoint 0 only.',
      `Invalid decisions are reported in the table, not counted as answers. Denominators: ${denominators}.`,
      ...notes,
    ]),
    spec: spec as unknown as TopLevelSpec,
    columns: [
      'system',
      'history',
      'checkpoint',
      'estimate',
      'lower',
      'upper',
      'intervalNote',
      'worlds',
      'invalidDecisions',
      'decisions',
    ],
    rows,
  };
}

function historyDistanceFigure(data: ChartData): FigureDefinition | null {
  if (data.historyDistances.length === 0) return null;
  const quantities = ['D(A,B)', 'D(A,A2)', 'divergence D(A,B) − D(A,A2)'] as const;
  const rows = data.historyDistances.flatMap((d) => [
    {
      system: systemLabel(data.run, d.systemId),
      checkpoint: d.checkpoint,
      quantity: quantities[0],
      ...estimateColumns('', d.distanceAB),
    },
    {
      system: systemLabel(data.run, d.systemId),
      checkpoint: d.checkpoint,
      quantity: quantities[1],
      ...estimateColumns('', d.distanceAA2),
    },
    {
      system: systemLabel(data.run, d.systemId),
      checkpoint: d.checkpoint,
      quantity: quantities[2],
      ...estimateColumns('', d.divergence),
    },
  ]);
  const estimates = data.historyDistances.flatMap((d) => [
    d.distanceAB,
    d.distanceAA2,
    d.divergence,
  ]);
  const notes = caveats(data, estimates);
  const worlds = estimates.map((e) => e.worlds);
  const denominators = `worlds with fully valid decision vectors per point: ${Math.min(...worlds)}–${Math.max(...worlds)}`;
  const title = 'History: distances between histories and experience divergence';
  const checkpointAxis = {
    field: 'checkpoint',
    type: 'ordinal',
    title: 'Checkpoint',
    axis: { labelAngle: 0 },
  };
  const spec = {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: {
      text: title,
      subtitle: subtitleLines(data, [
        `Mean absolute coordinate difference of decision vectors (A = 0, unknown = 0.5, B = 1), unitless. Invalid vectors give null, not agreement. Bars: pointwise ${pct(data)} intervals.`,
        denominators,
      ]),
      anchor: 'start',
    },
    data: { values: rows },
    facet: { column: systemFacet(data) },
    spec: {
      width: panelWidth(data),
      height: PANEL_HEIGHT,
      layer: [
        { mark: { type: 'rule', color: '#999' }, encoding: { y: { datum: 0 } } },
        {
          mark: { type: 'line', point: true, clip: true },
          encoding: {
            x: checkpointAxis,
            y: {
              field: 'estimate',
              type: 'quantitative',
              title: DISTANCE_TITLE,
              scale: { domain: [-1, 1] },
            },
            color: {
              field: 'quantity',
              type: 'nominal',
              title: 'Quantity',
              sort: [...quantities],
              scale: { range: ['#1f4e79', '#a5a5a5', '#c00000'] },
              legend: { orient: 'bottom', direction: 'vertical', labelLimit: 400 },
            },
          },
        },
        intervalLayer(checkpointAxis, DISTANCE_TITLE, {
          field: 'quantity',
          type: 'nominal',
          sort: [...quantities],
        }),
      ],
    },
  };
  return {
    id: 'history-distance',
    svgPath: 'figures/history-distance.svg',
    title,
    description:
      `${title}: D(A,B), D(A,A2) and their difference per checkpoint 0 to 4, per system. ${denominators}. ${notes.join(' ')}`.trim(),
    caption: captionText(data, [
      'Distance between the decision vectors of histories A and B, of the same-history control pair A and A2, and the experience divergence D(A,B) − D(A,A2). A world contributes only where both vectors are fully valid; where none does the value is null (a gap).',
      `Denominators: ${denominators}.`,
      ...notes,
    ]),
    spec: spec as unknown as TopLevelSpec,
    columns: [
      'system',
      'checkpoint',
      'quantity',
      'estimate',
      'lower',
      'upper',
      'intervalNote',
      'worlds',
    ],
    rows,
  };
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
    ...estimateColumns('', p.value),
    numerator: p.pooled.numerator,
    denominator: p.pooled.denominator,
    invalid: p.invalid.numerator,
  }));
  const denominators = denominatorSummary(data.behavior.map((p) => p.blocks));
  const notes = caveats(
    data,
    data.behavior.map((p) => p.value),
  );
  const title = 'Behavioral task indicators';
  const x = {
    field: 'indicator',
    type: 'nominal',
    title: null,
    sort: order,
    axis: { labelAngle: -30, labelLimit: 200 },
  };
  const spec = {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: {
      text: title,
      subtitle: subtitleLines(data, [
        `Task accuracy (0–1) for R, C, A, I and the rate of matched A pairs whose choice changed with the frame (a stronger framing effect is not a better score). Bars: pointwise ${pct(data)} intervals.`,
        denominators,
      ]),
      anchor: 'start',
    },
    data: { values: rows },
    facet: { column: systemFacet(data) },
    spec: {
      width: 170,
      height: PANEL_HEIGHT,
      layer: [
        {
          mark: { type: 'bar' },
          encoding: {
            x,
            y: {
              field: 'estimate',
              type: 'quantitative',
              title: 'Share (unitless, 0–1)',
              scale: { domain: [0, 1] },
            },
            color: {
              field: 'indicator',
              type: 'nominal',
              legend: null,
              sort: order,
              scale: { scheme: CATEGORY_SCHEME },
            },
          },
        },
        intervalLayer(x, 'Share (unitless, 0–1)', null, { color: { value: '#000' } }),
      ],
    },
  };
  return {
    id: 'behavior',
    svgPath: 'figures/behavior.svg',
    title,
    description:
      `${title}: world-mean accuracy on R (8 items), C (4), A (8) and I (4) per world, and the frame-induced change rate of the 4 matched A pairs, per system. These are partial task indicators, not validated axis scores. ${denominators}. ${notes.join(' ')}`.trim(),
    caption: captionText(data, [
      'Partial task indicators, not validated full-axis capacity scores. C probes information-seeking choice, not self-generated goals; A reports choices, not feelings.',
      `Denominators: ${denominators}.`,
      ...notes,
    ]),
    spec: spec as unknown as TopLevelSpec,
    columns: [
      'system',
      'indicator',
      'estimate',
      'lower',
      'upper',
      'intervalNote',
      'worlds',
      'numerator',
      'denominator',
      'invalid',
    ],
    rows,
  };
}

/** Label of a memory cell on a load axis: `N=64`, `N=32 blank`. */
export function cellLabel(load: number, condition: MemoryCondition): string {
  return condition === 'notebook' ? `N=${load}` : `N=${load} ${condition}`;
}

function taxonomyFigure(data: ChartData): FigureDefinition | null {
  if (data.taxonomy.length === 0) return null;
  const sorted = [...data.taxonomy].sort(
    (a, b) =>
      compareText(a.systemId, b.systemId) ||
      a.load - b.load ||
      conditionOrder(a.condition) - conditionOrder(b.condition),
  );
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
  const title = 'Memory probes by outcome (failure taxonomy) per load';
  const spec = {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: {
      text: title,
      subtitle: subtitleLines(data, [
        'Probe counts (all six strata, complete worlds) stacked by the one reason each probe received; passes at the bottom.',
      ]),
      anchor: 'start',
    },
    data: { values: rows },
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
  const ranked = rows.map((row) => ({ ...row, reasonRank: reasons.indexOf(row.reason) }));
  (spec.data as { values: unknown[] }).values = ranked;
  const total = rows.reduce((sum, r) => sum + r.count, 0);
  return {
    id: 'failure-taxonomy',
    svgPath: 'figures/failure-taxonomy.svg',
    title,
    description: `${title}: for each system and load, the count of memory probes per outcome reason, stacked; ${total} probes in total over complete worlds. Passing reasons are drawn first.`,
    caption: captionText(data, [
      'Every scored memory probe of a complete world receives exactly one reason (see traces/ for the per-probe record), so each bar totals the probes asked at that load. Counts per stratum are in the CSV.',
    ]),
    spec: spec as unknown as TopLevelSpec,
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
  const spec = {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: {
      text: title,
      subtitle: subtitleLines(data, [
        'All attempts of the run, including incomplete blocks and failures. Token sums exclude requests that reported no usage (see table).',
      ]),
      anchor: 'start',
    },
    data: { values: rows },
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
    spec: spec as unknown as TopLevelSpec,
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
