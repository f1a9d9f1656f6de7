import { evidenceBanner } from '@chi/analysis';
import { DIVERGENCE_INTERVAL_METHOD_LABELS } from '@chi/experiments/internal';
import type { ReportFigure } from '@chi/report/internal';
import type {
  DivergenceAnalysis,
  DivergenceEstimate,
  DivergenceSeries,
  DivergenceSystemResult,
} from './analyze';

/**
 * The figures of a divergence release (`figures/<id>.svg`), drawn as plain SVG from the analysis
 * alone (no vega, no fonts measured): the same analysis gives the same bytes, so `chi verify`
 * recomputes them like every other derived file.
 */

/** A figure of the divergence release: its report entry and its SVG text. */
export interface DivergenceFigure extends ReportFigure {
  readonly svg: string;
}

/** How a system is named in the divergence release: scripted and undeclared systems say so. */
export function divergenceSystemLabel(system: DivergenceSystemResult): string {
  switch (system.evidenceClass) {
    case 'scripted_baseline':
      return `${system.systemId} (SCRIPTED BASELINE, not a model)`;
    case 'unverified_endpoint':
      return `${system.systemId} (unverified endpoint: what served it was not declared)`;
    case 'live_model':
      return `${system.systemId} (live model)`;
    default:
      return `${system.systemId} (${system.evidenceClass} data, not a model)`;
  }
}

/** The release's banner (scripted, synthetic or unverified systems), or null for all-live. */
export function divergenceBanner(analysis: DivergenceAnalysis): string | null {
  return evidenceBanner(analysis.systems.map((system) => system.evidenceClass));
}

/** The series the trajectory figure draws, each with its style and checkpoint offset. */
export const FIGURE_SERIES: readonly {
  readonly series: DivergenceSeries;
  readonly label: string;
  readonly color: string;
  readonly dash: string;
  readonly offset: number;
}[] = [
  { series: 'excess', label: 'A vs B (main)', color: '#222222', dash: '', offset: -0.18 },
  { series: 'shamExcess', label: 'sham erasure', color: '#1f77b4', dash: '6 3', offset: -0.06 },
  { series: 'eraseExcess', label: 'erasure', color: '#d62728', dash: '2 3', offset: 0.06 },
  {
    series: 'swapExcess',
    label: 'swapped notebooks',
    color: '#2ca02c',
    dash: '10 3 2 3',
    offset: 0.18,
  },
];

function fixed(value: number): string {
  return value.toFixed(1);
}

function escapeXml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;');
}

function text(x: number, y: number, body: string, attributes = ''): string {
  // one font-size per element: a repeated attribute is not well-formed XML
  const size = attributes.includes('font-size=') ? '' : ' font-size="11"';
  return `<text x="${fixed(x)}" y="${fixed(y)}"${size}${attributes}>${escapeXml(body)}</text>`;
}

function line(x1: number, y1: number, x2: number, y2: number, attributes: string): string {
  return `<line x1="${fixed(x1)}" x2="${fixed(x2)}" y1="${fixed(y1)}" y2="${fixed(y2)}" ${attributes}/>`;
}

function dashOf(dash: string): string {
  return dash === '' ? '' : ` stroke-dasharray="${dash}"`;
}

/** One estimate drawn at `x`: its simultaneous band (pale), pointwise whisker and point. */
function estimateMark(
  x: number,
  y: (value: number) => number,
  value: DivergenceEstimate,
  color: string,
): string[] {
  if (value.estimate === null) return [];
  const parts: string[] = [];
  if (value.simultaneousLower !== null && value.simultaneousUpper !== null) {
    const top = y(value.simultaneousUpper);
    parts.push(
      `<rect x="${fixed(x - 4)}" y="${fixed(top)}" width="8" height="${fixed(Math.max(0.5, y(value.simultaneousLower) - top))}" fill="${color}" fill-opacity="0.15"/>`,
    );
  }
  if (value.lower !== null && value.upper !== null)
    parts.push(line(x, y(value.lower), x, y(value.upper), `stroke="${color}"`));
  parts.push(`<circle cx="${fixed(x)}" cy="${fixed(y(value.estimate))}" r="3" fill="${color}"/>`);
  return parts;
}

/** The y axis of a panel: gridlines and labels at `ticks`. */
function yAxis(
  left: number,
  right: number,
  y: (value: number) => number,
  ticks: readonly number[],
): string[] {
  return ticks.flatMap((tick) => [
    line(left, y(tick), right, y(tick), `stroke="${tick === 0 ? '#888' : '#e5e5e5'}"`),
    text(left - 6, y(tick) + 4, String(tick), ' text-anchor="end"'),
  ]);
}

/** A legend of labelled line styles at the panel's right. */
function legend(
  x: number,
  top: number,
  entries: readonly { label: string; color: string; dash: string }[],
): string[] {
  return entries.flatMap((entry, index) => {
    const ly = top + index * 20;
    return [
      line(x, ly, x + 30, ly, `stroke="${entry.color}" stroke-width="2"${dashOf(entry.dash)}`),
      text(x + 36, ly + 4, entry.label),
    ];
  });
}

/** A path through the defined points of one series. */
function seriesPath(points: readonly { x: number; y: number }[], color: string, dash: string) {
  if (points.length === 0) return [];
  const d = points
    .map((point, index) => `${index === 0 ? 'M' : 'L'}${fixed(point.x)},${fixed(point.y)}`)
    .join(' ');
  return [`<path d="${d}" fill="none" stroke="${color}" stroke-width="2"${dashOf(dash)}/>`];
}

/** Where the panels of a figure start: below the title, the subtitle and the banner. */
const TOP = 66;

/** A figure's subtitle and the release's banner (on its own line), or null without one. */
interface Subtitle {
  readonly what: string;
  readonly banner: string | null;
}

/** The SVG frame: white background, a title, a subtitle and the banner on its own line. */
function frame(width: number, height: number, title: string, subtitle: Subtitle, body: string[]) {
  return `${[
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" role="img" aria-label="${escapeXml(title)}">`,
    `<rect width="${width}" height="${height}" fill="#fff"/>`,
    `<text x="20" y="24" font-size="16" font-weight="bold">${escapeXml(title)}</text>`,
    `<text x="20" y="40" font-size="12">${escapeXml(subtitle.what)}</text>`,
    ...(subtitle.banner === null
      ? []
      : [
          `<text x="20" y="56" font-size="12" font-weight="bold" fill="#8a5a00">${escapeXml(subtitle.banner)}</text>`,
        ]),
    ...body,
    '</svg>',
  ].join('\n')}\n`;
}

function subtitleOf(analysis: DivergenceAnalysis, what: string): Subtitle {
  return { what, banner: divergenceBanner(analysis) };
}

/** A checkpoint axis: x of a checkpoint (plus an offset) inside [left, right]. */
function checkpointScale(checkpoints: readonly number[], left: number, right: number) {
  const minX = Math.min(...checkpoints) - 0.5;
  const maxX = Math.max(...checkpoints) + 0.5;
  return (value: number) => left + ((value - minX) / (maxX - minX)) * (right - left);
}

const WIDTH = 1000;
const PANEL = 270;
const PLOT = 200;

function trajectoryPanel(
  analysis: DivergenceAnalysis,
  system: DivergenceSystemResult,
  top: number,
): string[] {
  const left = 70;
  const right = WIDTH - 200;
  const x = checkpointScale(
    system.trajectory.map((point) => point.checkpoint),
    left,
    right,
  );
  const y = (value: number) => top + 30 + ((1 - value) / 2) * PLOT;
  const parts = [
    text(left, top + 18, divergenceSystemLabel(system), ' font-size="14" font-weight="bold"'),
    ...system.trajectory.map((point) =>
      text(
        x(point.checkpoint),
        y(-1) + 16,
        `${point.checkpoint} ${point.phase}`,
        ' text-anchor="middle"',
      ),
    ),
    ...yAxis(left, right, y, [-1, -0.5, 0, 0.5, 1]),
    line(
      x(analysis.primaryCheckpoint),
      y(1),
      x(analysis.primaryCheckpoint),
      y(-1),
      'stroke="#999" stroke-dasharray="3 3"',
    ),
    text(x(analysis.primaryCheckpoint), y(1) - 4, 'primary (manifest)', ' text-anchor="middle"'),
  ];
  for (const style of FIGURE_SERIES) {
    const defined = system.trajectory.filter(
      (point) => point.series[style.series].estimate !== null,
    );
    parts.push(
      ...seriesPath(
        defined.map((point) => ({
          x: x(point.checkpoint + style.offset),
          y: y(point.series[style.series].estimate as number),
        })),
        style.color,
        style.dash,
      ),
      ...defined.flatMap((point) =>
        estimateMark(
          x(point.checkpoint + style.offset),
          y,
          point.series[style.series],
          style.color,
        ),
      ),
    );
  }
  return [...parts, ...legend(right + 20, top + 50, FIGURE_SERIES)];
}

/**
 * `figures/divergence-trajectory.svg`: per system, excess divergence at every checkpoint with the
 * sham-erasure, erasure and swap arms beside it (offset on the checkpoint axis), each point with
 * its pointwise 95% interval (whisker) and its simultaneous band (pale bar); the primary
 * checkpoint is the manifest's.
 */
export function trajectoryFigure(analysis: DivergenceAnalysis): DivergenceFigure {
  const height = TOP + 10 + PANEL * analysis.systems.length;
  const method = DIVERGENCE_INTERVAL_METHOD_LABELS[analysis.analysis.intervalMethod];
  return {
    id: 'divergence-trajectory',
    svgPath: 'figures/divergence-trajectory.svg',
    title: 'Excess divergence (different-history minus same-history distance) by checkpoint',
    caption: `Excess divergence by checkpoint per system, with the sham-erasure, erasure and swapped-notebook arms beside it. Whiskers: pointwise 95% intervals over world clusters (${method}), not claims; pale bars: the simultaneous 95% band of the system's grid, which is the claim. The dashed line marks the primary checkpoint read from the manifest.`,
    svg: frame(
      WIDTH,
      height,
      'Excess divergence (different-history minus same-history distance) by checkpoint',
      subtitleOf(
        analysis,
        `Whiskers: pointwise 95% intervals (${method}); pale bars: simultaneous 95% bands.`,
      ),
      analysis.systems.flatMap((system, index) =>
        trajectoryPanel(analysis, system, TOP + index * PANEL),
      ),
    ),
  };
}

function dynamicsPanel(system: DivergenceSystemResult, top: number, rowHeight: number): string[] {
  const left = 220;
  const right = WIDTH - 40;
  const values = system.dynamics.flatMap((dynamic) =>
    [
      dynamic.value.estimate,
      dynamic.value.simultaneousLower,
      dynamic.value.simultaneousUpper,
      dynamic.value.lower,
      dynamic.value.upper,
    ].filter((value): value is number => value !== null),
  );
  const low = Math.min(-1, Math.floor(Math.min(0, ...values)));
  const high = Math.max(1, Math.ceil(Math.max(0, ...values)));
  const x = (value: number) => left + ((value - low) / (high - low)) * (right - left);
  const bottom = top + 30 + rowHeight * system.dynamics.length;
  const parts = [
    text(20, top + 18, divergenceSystemLabel(system), ' font-size="14" font-weight="bold"'),
  ];
  for (let tick = low; tick <= high; tick += 0.5)
    parts.push(
      line(x(tick), top + 26, x(tick), bottom, `stroke="${tick === 0 ? '#888' : '#e5e5e5'}"`),
      text(x(tick), bottom + 14, String(tick), ' text-anchor="middle"'),
    );
  system.dynamics.forEach((dynamic, index) => {
    const cy = top + 30 + rowHeight * index + rowHeight / 2;
    parts.push(text(left - 8, cy + 4, dynamic.name, ' text-anchor="end"'));
    if (dynamic.value.estimate === null) {
      parts.push(text(x(0) + 6, cy + 4, 'null (see the table)', ' fill="#666"'));
      return;
    }
    // a horizontal mark: the same band, whisker and point, on a value axis along x
    const value = dynamic.value;
    if (value.simultaneousLower !== null && value.simultaneousUpper !== null)
      parts.push(
        `<rect x="${fixed(x(value.simultaneousLower))}" y="${fixed(cy - 4)}" width="${fixed(Math.max(0.5, x(value.simultaneousUpper) - x(value.simultaneousLower)))}" height="8" fill="#1f77b4" fill-opacity="0.2"/>`,
      );
    if (value.lower !== null && value.upper !== null)
      parts.push(line(x(value.lower), cy, x(value.upper), cy, 'stroke="#1f77b4"'));
    parts.push(
      `<circle cx="${fixed(x(value.estimate as number))}" cy="${fixed(cy)}" r="3" fill="#1f77b4"/>`,
    );
  });
  return parts;
}

/**
 * `figures/divergence-dynamics.svg`: per system, every CHIS dynamic as a point with its pointwise
 * 95% interval and the simultaneous band of the dynamics family; a null dynamic is marked null.
 */
export function dynamicsFigure(analysis: DivergenceAnalysis): DivergenceFigure {
  const rowHeight = 18;
  const panels: string[] = [];
  let top = TOP;
  for (const system of analysis.systems) {
    panels.push(...dynamicsPanel(system, top, rowHeight));
    top += 60 + rowHeight * system.dynamics.length;
  }
  const title = 'CHIS dynamics per system';
  return {
    id: 'divergence-dynamics',
    svgPath: 'figures/divergence-dynamics.svg',
    title,
    caption:
      'Every CHIS dynamic per system: the point estimate, its pointwise 95% interval (line) and the simultaneous 95% band of the dynamics family (pale bar). Definitions and inputs are in the dynamics table; a null dynamic is null with its reason there.',
    svg: frame(
      WIDTH,
      top + 10,
      title,
      subtitleOf(analysis, 'Lines: pointwise 95% intervals; pale bars: simultaneous 95% bands.'),
      panels,
    ),
  };
}

/** A cell's fill: white at 0 to dark blue at 1 (the text on it switches to white past 0.6). */
function accuracyFill(value: number): string {
  const channel = (from: number, to: number) =>
    Math.round(from + (to - from) * Math.min(1, Math.max(0, value)))
      .toString(16)
      .padStart(2, '0');
  return `#${channel(255, 8)}${channel(255, 48)}${channel(255, 107)}`;
}

const CELL_HEIGHT = 16;

/** One system's accuracy grid: a row per arm, a column per checkpoint, the value in each cell. */
function accuracyPanel(system: DivergenceSystemResult, top: number): string[] {
  const left = 160;
  const checkpoints = [...new Set(system.taskAccuracy.map((cell) => cell.checkpoint))];
  const arms = [...new Set(system.taskAccuracy.map((cell) => cell.arm))];
  const width = Math.min(110, (WIDTH - left - 40) / Math.max(1, checkpoints.length));
  const parts = [
    text(20, top + 18, divergenceSystemLabel(system), ' font-size="14" font-weight="bold"'),
    ...checkpoints.map((checkpoint, column) =>
      text(
        left + width * (column + 0.5),
        top + 38,
        `checkpoint ${checkpoint}`,
        ' text-anchor="middle"',
      ),
    ),
  ];
  arms.forEach((arm, row) => {
    const y = top + 44 + row * CELL_HEIGHT;
    parts.push(text(left - 8, y + 12, arm, ' text-anchor="end"'));
    checkpoints.forEach((checkpoint, column) => {
      const cell = system.taskAccuracy.find(
        (candidate) => candidate.arm === arm && candidate.checkpoint === checkpoint,
      );
      const value = cell?.value.estimate ?? null;
      const x = left + width * column;
      parts.push(
        `<rect x="${fixed(x)}" y="${fixed(y)}" width="${fixed(width - 1)}" height="${CELL_HEIGHT - 1}" fill="${value === null ? '#eeeeee' : accuracyFill(value)}"/>`,
        text(
          x + width / 2,
          y + 12,
          value === null ? 'null' : value.toFixed(2),
          ` text-anchor="middle"${value !== null && value > 0.6 ? ' fill="#fff"' : ''}`,
        ),
      );
    });
  });
  return parts;
}

/** The height of one system's accuracy grid. */
function accuracyPanelHeight(system: DivergenceSystemResult): number {
  return 64 + CELL_HEIGHT * new Set(system.taskAccuracy.map((cell) => cell.arm)).size;
}

/**
 * `figures/divergence-accuracy.svg`: per system, task accuracy of every arm at every checkpoint
 * as a grid (darker is higher, the value printed in each cell; null cells grey): the task
 * outcomes that accompany the dynamics. Intervals are in the report's tables.
 */
export function accuracyFigure(analysis: DivergenceAnalysis): DivergenceFigure {
  const title = 'Task accuracy per arm and checkpoint';
  const panels: string[] = [];
  let top = TOP;
  for (const system of analysis.systems) {
    panels.push(...accuracyPanel(system, top));
    top += accuracyPanelHeight(system);
  }
  return {
    id: 'divergence-accuracy',
    svgPath: 'figures/divergence-accuracy.svg',
    title,
    caption:
      'Task accuracy (share of the primary choices answered as the arm’s history warrants) of every arm at every checkpoint, per system: darker is higher, the world-mean value in each cell, null cells grey. The task outcomes that accompany the dynamics; pointwise intervals are in the task-accuracy tables and divergence-accuracy.csv.',
    svg: frame(
      WIDTH,
      top + 10,
      title,
      subtitleOf(analysis, 'World means; intervals in the report tables.'),
      panels,
    ),
  };
}

/** Every figure of the divergence release, in the report's order. */
export function divergenceFigures(analysis: DivergenceAnalysis): DivergenceFigure[] {
  return [trajectoryFigure(analysis), dynamicsFigure(analysis), accuracyFigure(analysis)];
}
