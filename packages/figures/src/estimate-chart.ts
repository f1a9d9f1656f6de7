import type { IntervalEstimate, RunChartData } from '@chi/analysis';
import type { FigureDefinition, FigureRow, SpecPart } from './figure-definition';
import {
  bottomLegend,
  captionText,
  caveats,
  emptyFacets,
  PANEL_HEIGHT,
  panelColumns,
  panelWidthFor,
  specOpening,
} from './figure-parts';
import { systemColorScale } from './system-colors';

/** Point shapes of the series of a line chart; the cross is kept for undefined values. */
const SERIES_SHAPES = [
  'circle',
  'square',
  'triangle-up',
  'diamond',
  'triangle-down',
  'triangle-right',
  'triangle-left',
  'wedge',
];
const SERIES_DASHES = [
  [1, 0],
  [6, 3],
  [2, 2],
  [8, 2, 2, 2],
  [4, 4],
];
const UNDEFINED_COLOR = '#555';

/** The facet panels of a chart: one panel per value of `field`, in `order`. */
export interface FacetSpec {
  readonly field: string;
  readonly title: string | null;
  readonly order: readonly string[];
}

/** The x axis of a line chart: memory load on a log2 axis, or history checkpoint 0–4. */
export type LineAxis =
  | { readonly kind: 'load'; readonly loads: readonly number[]; readonly title: string }
  | { readonly kind: 'checkpoint'; readonly title: string };

/** A line chart of interval estimates: one line per series in every facet panel. */
export interface LineChart {
  readonly facet: FacetSpec;
  /** The series of each panel; each gets its own point shape, dash and x offset. */
  readonly series: FacetSpec;
  readonly x: LineAxis;
  readonly yTitle: string;
  readonly yDomain: readonly [number, number];
  readonly yTicks: readonly number[];
  /** Layers drawn beneath the estimates, e.g. reference rules. */
  readonly beneath?: readonly SpecPart[];
  /** Panel height; {@link PANEL_HEIGHT} unless given. */
  readonly height?: number;
  /** Splits lines by a field, e.g. the world set, so a line never joins different world sets. */
  readonly detail?: SpecPart;
}

/** Geometry of an x axis: its plotted field, scale and spacing of neighbouring ticks. */
interface AxisGeometry {
  readonly rawField: string;
  readonly scale: SpecPart;
  readonly axis: SpecPart;
  /** Axis units between neighbouring tested values (1 on both axes: log2 of a doubling, or a checkpoint). */
  readonly unitsSpan: number;
  /** Expression mapping the raw value and an offset in axis units to the plotted x. */
  readonly offsetExpression: (offset: string) => string;
}

function axisGeometry(x: LineAxis): AxisGeometry {
  if (x.kind === 'load') {
    const lo = (x.loads[0] ?? 1) / 1.3;
    const hi = (x.loads[x.loads.length - 1] ?? 1) * 1.3;
    return {
      rawField: 'load',
      scale: { type: 'log', base: 2, nice: false, domain: [lo, hi] },
      axis: { values: [...x.loads], format: 'd', title: x.title, titleLimit: 0 },
      unitsSpan: Math.log2(hi / lo),
      offsetExpression: (offset) => `datum.load * pow(2, ${offset})`,
    };
  }
  return {
    rawField: 'checkpoint',
    scale: { type: 'linear', domain: [-0.5, 4.5], nice: false, zero: false },
    axis: { values: [0, 1, 2, 3, 4], format: 'd', title: x.title, grid: false },
    unitsSpan: 5,
    offsetExpression: (offset) => `datum.checkpoint + ${offset}`,
  };
}

/**
 * Series of a panel side by side: the offset (in axis units) between neighbouring series, so two
 * identical series are both visible, never one drawn on top of the other. All series together
 * span at most 0.4 of the distance between neighbouring tested values.
 */
export function seriesOffsetStep(seriesCount: number): number {
  return seriesCount <= 1 ? 0 : Math.min(0.2, 0.4 / (seriesCount - 1));
}

/**
 * Width of an interval cap in pixels: at most the distance between neighbouring series' points,
 * so caps never reach a neighbouring point (2–10 px).
 */
export function capWidthPx(stepPx: number, seriesCount: number): number {
  if (seriesCount <= 1) return 10;
  return Math.max(2, Math.min(10, Math.floor(stepPx * 0.8)));
}

/** The padded y domain: room below the lowest tick for the undefined markers, so 0 is off the frame. */
function paddedDomain(domain: readonly [number, number]): { domain: number[]; undefinedY: number } {
  const span = domain[1] - domain[0];
  return {
    domain: [domain[0] - span * 0.12, domain[1] + span * 0.03],
    undefinedY: domain[0] - span * 0.08,
  };
}

/**
 * A faceted line chart of the rows' `estimate` with `lower`–`upper` interval bars where both are
 * valid. Colour is always the system's fixed colour; series within a panel differ by point shape,
 * dash and a small x offset; undefined estimates are a grey × below zero.
 */
export function lineEstimateSpec(
  data: RunChartData,
  title: string,
  subtitle: readonly string[],
  rows: readonly FigureRow[],
  chart: LineChart,
): SpecPart {
  const columns = panelColumns(chart.facet.order.length);
  const width = panelWidthFor(columns);
  const geometry = axisGeometry(chart.x);
  const seriesOrder = [...chart.series.order];
  const k = seriesOrder.length;
  const step = seriesOffsetStep(k);
  const stepPx = (step * width) / geometry.unitsSpan;
  const offset = `(indexof(${JSON.stringify(seriesOrder)}, datum[${JSON.stringify(chart.series.field)}]) - ${(k - 1) / 2}) * ${step}`;
  const x = { field: 'xPlot', type: 'quantitative', scale: geometry.scale, axis: geometry.axis };
  const y = paddedDomain(chart.yDomain);
  const yScale = { domain: y.domain, nice: false, zero: false };
  const seriesIsSystem = chart.series.field === 'system';
  const color = {
    field: 'system',
    type: 'nominal',
    scale: systemColorScale(data.run),
    legend: seriesIsSystem ? bottomLegend(chart.series.title, Math.min(3, Math.max(1, k))) : null,
    ...(seriesIsSystem ? { title: chart.series.title } : {}),
  };
  const shape = {
    field: chart.series.field,
    type: 'nominal',
    title: chart.series.title,
    scale: { domain: seriesOrder, range: SERIES_SHAPES.slice(0, Math.max(1, k)) },
    legend: bottomLegend(chart.series.title, Math.min(3, Math.max(1, k))),
  };
  const strokeDash = seriesIsSystem
    ? null
    : {
        field: chart.series.field,
        type: 'nominal',
        title: chart.series.title,
        scale: { domain: seriesOrder, range: SERIES_DASHES.slice(0, Math.max(1, k)) },
        legend: bottomLegend(chart.series.title, Math.min(3, Math.max(1, k))),
      };
  const yAxis = {
    values: [...chart.yTicks],
    title: chart.yTitle,
    titleLimit: 0,
    labelOverlap: false,
  };
  return {
    ...specOpening(data, title, subtitle, rows),
    transform: [{ calculate: geometry.offsetExpression(offset), as: 'xPlot' }],
    facet: {
      field: chart.facet.field,
      type: 'nominal',
      title: chart.facet.title,
      sort: [...chart.facet.order],
    },
    columns,
    // every panel draws its own x axis: a wrapped last row would otherwise leave an axis under an
    // empty slot
    resolve: { axis: { x: 'independent' } },
    spec: {
      width,
      height: chart.height ?? PANEL_HEIGHT,
      layer: [
        ...(chart.beneath ?? []),
        {
          mark: { type: 'line', clip: true, invalid: 'break-paths-filter-domains' },
          encoding: {
            x,
            y: { field: 'estimate', type: 'quantitative', scale: yScale, axis: yAxis },
            color,
            detail:
              chart.detail === undefined
                ? { field: chart.series.field, type: 'nominal' }
                : [{ field: chart.series.field, type: 'nominal' }, chart.detail],
            ...(strokeDash === null ? {} : { strokeDash }),
          },
        },
        {
          transform: [{ filter: 'isValid(datum.lower) && isValid(datum.upper)' }],
          mark: { type: 'errorbar', ticks: { size: capWidthPx(stepPx, k) } },
          encoding: {
            x,
            // same title as the estimate layer, or vega-lite joins both into "title, lower"
            y: { field: 'lower', type: 'quantitative', scale: yScale, axis: yAxis },
            y2: { field: 'upper' },
            color,
          },
        },
        {
          transform: [{ filter: 'isValid(datum.estimate)' }],
          mark: { type: 'point', filled: true, size: 40, opacity: 1 },
          encoding: {
            x,
            y: { field: 'estimate', type: 'quantitative', scale: yScale, axis: yAxis },
            color,
            shape,
          },
        },
        {
          transform: [{ filter: '!isValid(datum.estimate)' }],
          mark: { type: 'point', shape: 'cross', filled: true, size: 60, color: UNDEFINED_COLOR },
          encoding: { x, y: { datum: y.undefinedY, scale: yScale, axis: yAxis } },
        },
      ],
    },
  };
}

/** The categories of a bar chart, with the short axis labels the subtitle explains. */
export interface CategorySpec extends FacetSpec {
  /** Axis label per category value (the full value stays in the CSV and the caption). */
  readonly shortLabels?: Readonly<Record<string, string>>;
  /** The angle of the full labels when there are no short ones (default -30). */
  readonly labelAngle?: number;
}

/** A vega expression mapping `datum.label` through `labels` (unknown labels unchanged). */
export function labelExpression(labels: Readonly<Record<string, string>>): string {
  return Object.entries(labels).reduceRight(
    (otherwise, [from, to]) =>
      `datum.label === ${JSON.stringify(from)} ? ${JSON.stringify(to)} : (${otherwise})`,
    'datum.label',
  );
}

/** A bar chart of interval estimates: one panel per facet, one bar per category. */
export interface BarChart {
  readonly facet: FacetSpec;
  readonly category: CategorySpec;
  readonly yTitle: string;
  readonly yDomain: readonly [number, number];
  readonly yTicks: readonly number[];
  /** Opacity per category, so categories differ without using a system's colour. */
  readonly categoryOpacity?: readonly number[];
}

/**
 * A faceted bar chart in the system's fixed colour, an interval bar where both bounds are valid and
 * the value written above each bar (`0.00` for zero, `n/a` for undefined), so zero and undefined
 * never look alike.
 */
export function barEstimateSpec(
  data: RunChartData,
  title: string,
  subtitle: readonly string[],
  rows: readonly FigureRow[],
  chart: BarChart,
): SpecPart {
  const columns = panelColumns(chart.facet.order.length);
  const width = panelWidthFor(columns);
  const categories = [...chart.category.order];
  const bandPx = width / Math.max(1, categories.length);
  const shortLabels = chart.category.shortLabels;
  const x = {
    field: chart.category.field,
    type: 'nominal',
    title: null,
    sort: categories,
    scale: { domain: categories, paddingInner: 0.25 },
    axis:
      shortLabels === undefined
        ? { labelAngle: chart.category.labelAngle ?? -30, labelLimit: 150 }
        : { labelAngle: 0, labelExpr: labelExpression(shortLabels) },
  };
  const span = chart.yDomain[1] - chart.yDomain[0];
  const yScale = { domain: [chart.yDomain[0], chart.yDomain[1] + span * 0.12], nice: false };
  const y = {
    field: 'estimate',
    type: 'quantitative',
    scale: yScale,
    axis: { values: [...chart.yTicks], title: chart.yTitle, titleLimit: 0, labelOverlap: false },
  };
  const color = {
    field: 'system',
    type: 'nominal',
    scale: systemColorScale(data.run),
    legend: null,
  };
  const opacities = chart.categoryOpacity ?? categories.map(() => 1);
  // raw opacity values (scale null): an ordinal opacity scale would interpolate the range
  const opacity = { field: 'barOpacity', type: 'quantitative', scale: null, legend: null };
  return {
    ...specOpening(data, title, subtitle, rows),
    transform: [
      {
        calculate: `isValid(datum.estimate) ? format(datum.estimate, '.2f') : 'n/a'`,
        as: 'valueLabel',
      },
      {
        calculate: `${JSON.stringify(opacities)}[indexof(${JSON.stringify(categories)}, datum[${JSON.stringify(chart.category.field)}])]`,
        as: 'barOpacity',
      },
      {
        calculate: `isValid(datum.upper) ? datum.upper : (isValid(datum.estimate) ? datum.estimate : ${chart.yDomain[0]})`,
        as: 'labelY',
      },
    ],
    facet: {
      field: chart.facet.field,
      type: 'nominal',
      title: chart.facet.title,
      sort: [...chart.facet.order],
    },
    columns,
    resolve: { axis: { x: 'independent' } },
    spec: {
      width,
      height: PANEL_HEIGHT,
      layer: [
        {
          transform: [{ filter: 'isValid(datum.estimate)' }],
          mark: { type: 'bar' },
          encoding: { x, y, color, opacity },
        },
        // a thin mark at every estimate, so a zero is drawn as zero, not as a missing bar
        {
          transform: [{ filter: 'isValid(datum.estimate)' }],
          mark: {
            type: 'tick',
            orient: 'horizontal',
            thickness: 2,
            opacity: 1,
            bandSize: Math.max(6, Math.floor(bandPx * 0.6)),
          },
          encoding: { x, y, color },
        },
        {
          transform: [{ filter: 'isValid(datum.lower) && isValid(datum.upper)' }],
          mark: {
            type: 'errorbar',
            color: '#000',
            ticks: { size: Math.max(4, Math.min(12, Math.floor(bandPx * 0.3))) },
          },
          encoding: {
            x,
            y: { ...y, field: 'lower' },
            y2: { field: 'upper' },
          },
        },
        {
          mark: { type: 'text', dy: -7, fontSize: 10, color: '#222' },
          encoding: {
            x,
            y: { ...y, field: 'labelY' },
            text: { field: 'valueLabel' },
          },
        },
      ],
    },
  };
}

/** What one figure of interval estimates states; `estimateFigure` adds denominators and caveats. */
export interface EstimateFigure {
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
  readonly chart: ({ readonly kind: 'line' } & LineChart) | ({ readonly kind: 'bar' } & BarChart);
}

/**
 * A figure of interval estimates: its spec, description and caption with denominators and
 * caveats. A facet (e.g. a system) whose every estimate is undefined is not drawn; the subtitle
 * and caption name it instead.
 */
export function estimateFigure(data: RunChartData, figure: EstimateFigure): FigureDefinition {
  const { id, title, denominators } = figure;
  const facet = figure.chart.facet;
  const empty = emptyFacets(figure.rows, facet.field, facet.order);
  const drawnRows = figure.rows.filter((r) => !empty.includes(String(r[facet.field])));
  const emptyNote =
    empty.length === 0 ? [] : [`Not drawn (no defined value at any point): ${empty.join(', ')}.`];
  const notes = [...caveats(data, figure.estimates), ...emptyNote];
  const chartFacet = { ...facet, order: facet.order.filter((f) => !empty.includes(f)) };
  const subtitle = [figure.subtitle, denominators, ...emptyNote];
  const spec =
    figure.chart.kind === 'line'
      ? lineEstimateSpec(data, title, subtitle, drawnRows, { ...figure.chart, facet: chartFacet })
      : barEstimateSpec(data, title, subtitle, drawnRows, { ...figure.chart, facet: chartFacet });
  return {
    id,
    svgPath: `figures/${id}.svg`,
    title,
    description: `${figure.description} ${denominators}. ${notes.join(' ')}`.trim(),
    caption: captionText(data, [...figure.caption, `Denominators: ${denominators}.`, ...notes]),
    spec,
    columns: figure.columns,
    rows: figure.rows,
  };
}
