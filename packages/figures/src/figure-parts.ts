import type { IntervalEstimate, RunChartData } from '@chi/analysis';
import { chartPartOf, runEvidenceBanner } from '@chi/analysis';
import type { BlockCounts, MemoryCondition, MemoryPoint } from '@chi/analysis/internal';
import { systemLabel } from '@chi/analysis/internal';
import type { FigureCell, FigureRow, SpecPart } from './figure-definition';

/** Width of the report column every figure must fit, in CSS pixels. */
export const COLUMN_PX = 1000;
/** Room a faceted chart needs beside its panels: y axis labels and title, padding. */
const Y_AXIS_PX = 110;
/** Space between facet panels (vega-lite's default facet spacing is 20). */
export const FACET_SPACING_PX = 20;
export const PANEL_HEIGHT = 170;
const VEGA_LITE_SCHEMA = 'https://vega.github.io/schema/vega-lite/v6.json';
/** Most panels in one row of a faceted figure: more wrap onto the next row. */
export const MAX_PANEL_COLUMNS = 3;

/**
 * Width of one facet panel so that `columns` panels, their spacing and the y axis fit the report
 * column ({@link COLUMN_PX}). Legends go below the panels, so they take no width.
 */
export function panelWidthFor(columns: number): number {
  const n = Math.max(1, columns);
  return Math.floor((COLUMN_PX - Y_AXIS_PX - (n - 1) * FACET_SPACING_PX) / n);
}

/** Panels per row for `count` facets: at most {@link MAX_PANEL_COLUMNS}. */
export function panelColumns(count: number): number {
  return Math.max(1, Math.min(MAX_PANEL_COLUMNS, count));
}

/** A legend below the panels, in columns, so it takes no width beside them. */
export function bottomLegend(title: string | null, columns = 3): SpecPart {
  return {
    orient: 'bottom',
    direction: 'vertical',
    columns,
    title,
    labelLimit: Math.floor(800 / columns),
  };
}

/** The CSV columns `estimateColumns` writes, in its order. */
export const ESTIMATE_COLUMNS = [
  'estimate',
  'lower',
  'upper',
  'intervalNote',
  'worlds',
  'completeWorlds',
  'plannedWorlds',
] as const;

/** An estimate's CSV cells: the value, its interval and its world set (used / complete / planned). */
export function estimateColumns(estimate: IntervalEstimate): Record<string, FigureCell> {
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
export function worldSetCell(seeds: readonly number[]): string {
  return seeds.length === 0 ? 'none' : seeds.join(' ');
}

/** Lines join only points that rest on the same world set. */
export const WORLD_SET_DETAIL: SpecPart = { field: 'worldSet', type: 'nominal' };

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

/** The caveats the plotted estimates call for: no interval, gaps, exploratory. */
export function caveats(data: RunChartData, estimates: readonly IntervalEstimate[]): string[] {
  const notes: string[] = [];
  if (estimates.some((e) => e.intervalNote === 'fewer_than_two_complete_worlds')) {
    notes.push('No interval is drawn where fewer than two complete worlds exist.');
  }
  if (estimates.some((e) => e.intervalNote === 'undefined_estimate' || e.estimate === null)) {
    notes.push(
      'Undefined values (e.g. invalid trajectories) are drawn as a grey × below the zero line and labelled n/a, never as zero.',
    );
  }
  const minWorlds = Math.min(...estimates.map((e) => e.worlds));
  if (estimates.length > 0 && minWorlds < data.run.analysis.exploratoryBelowWorlds) {
    notes.push(
      `Exploratory: fewer than ${data.run.analysis.exploratoryBelowWorlds} complete worlds; no comparison here is confirmatory.`,
    );
  }
  return notes;
}

/**
 * Vega does not wrap titles, and it measures text by an estimate of 0.8 x font size per character
 * (see render-svg.ts) and cuts a longer line: a subtitle line of at most this many characters fits
 * the column without being cut.
 */
export const SUBTITLE_LINE_CHARS = 100;

/** Breaks text at spaces into lines of at most `maxChars` characters (a longer word stays whole). */
export function wrapText(text: string, maxChars: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line === '') line = word;
    else if (line.length + 1 + word.length <= maxChars) line = `${line} ${word}`;
    else {
      lines.push(line);
      line = word;
    }
  }
  if (line !== '') lines.push(line);
  return lines;
}

function subtitleLines(data: RunChartData, lines: readonly string[]): string[] {
  const banner = runEvidenceBanner(data.run);
  const all = banner === null ? [...lines] : [banner.toUpperCase(), ...lines];
  return all.flatMap((line) => wrapText(line, SUBTITLE_LINE_CHARS));
}

/** A caption: the run banner (when any) then the sentences. */
export function captionText(data: RunChartData, parts: readonly string[]): string {
  const banner = runEvidenceBanner(data.run);
  return [...(banner === null ? [] : [`${banner}.`]), ...parts].join(' ');
}

/**
 * What every figure spec opens with: schema, title (run banner first), the plotted rows and a
 * config that keeps every title inside its panel.
 */
export function specOpening(
  data: RunChartData,
  title: string,
  subtitle: readonly string[],
  rows: readonly FigureRow[],
): SpecPart {
  return {
    $schema: VEGA_LITE_SCHEMA,
    title: {
      text: title,
      subtitle: subtitleLines(data, subtitle),
      anchor: 'start',
      subtitleLimit: COLUMN_PX - 20,
      limit: COLUMN_PX - 20,
    },
    data: { values: rows },
    config: { header: { labelLimit: 260, titleLimit: COLUMN_PX - 40 } },
  };
}

/** A grey horizontal reference line at `y`, e.g. a threshold. */
export function referenceRule(y: number, options: { readonly dashed?: boolean } = {}): SpecPart {
  return {
    mark: {
      type: 'rule',
      color: '#999',
      ...(options.dashed === true ? { strokeDash: [2, 2] } : {}),
    },
    encoding: { y: { datum: y } },
  };
}

/** Code-unit order: unlike localeCompare, identical on every ICU version. */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The interval level as a percentage, e.g. `95%`. */
export function pct(data: RunChartData): string {
  return `${Math.round(data.run.analysis.level * 100)}%`;
}

/** System labels in manifest order (not alphabetical), so every figure lists them the same way. */
export function systemOrder(data: RunChartData): string[] {
  return data.run.systems.map((s) => systemLabel(data.run, s.id));
}

/** The notebook-condition points of the memory curve. */
export function notebookPoints(data: RunChartData): MemoryPoint[] {
  return chartPartOf(data, 'memory').memory.filter((p) => p.condition === 'notebook');
}

/** The distinct loads of the points, ascending. */
export function sortedLoads(points: readonly MemoryPoint[]): number[] {
  return [...new Set(points.map((p) => p.load))].sort((a, b) => a - b);
}

/** Order of memory conditions: notebook, blank, oracle. */
export function conditionOrder(condition: MemoryCondition): number {
  return { notebook: 0, blank: 1, oracle: 2, replay: 3 }[condition];
}

/** Order of cells by system id, then load, then condition (notebook, blank, oracle). */
export function bySystemLoadCondition(
  a: { readonly systemId: string; readonly load: number; readonly condition: MemoryCondition },
  b: { readonly systemId: string; readonly load: number; readonly condition: MemoryCondition },
): number {
  return (
    compareText(a.systemId, b.systemId) ||
    a.load - b.load ||
    conditionOrder(a.condition) - conditionOrder(b.condition)
  );
}

/** Label of a memory cell on a load axis: `N=64`, `N=32 blank`. */
export function cellLabel(load: number, condition: MemoryCondition): string {
  return condition === 'notebook' ? `N=${load}` : `N=${load} ${condition}`;
}

/**
 * The facets (e.g. systems) that have nothing to draw: every row's estimate is undefined. They
 * are left out of the figure and named in its caption, instead of an empty panel.
 */
export function emptyFacets(
  rows: readonly FigureRow[],
  facetField: string,
  order: readonly string[],
): string[] {
  return order.filter((facet) => {
    const own = rows.filter((r) => r[facetField] === facet);
    return own.length > 0 && own.every((r) => r.estimate === null);
  });
}
