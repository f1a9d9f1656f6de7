import type { RunChartData } from '@chi/analysis';
import type { ResourceRow } from '@chi/analysis/internal';
import { systemLabel } from '@chi/analysis/internal';
import type { FigureDefinition, FigureRow } from './figure-definition';
import { bottomLegend, COLUMN_PX, captionText, specOpening, systemOrder } from './figure-parts';
import { systemColorScale } from './system-colors';

/** One panel of the resources figure. */
interface ResourceMetric {
  readonly metric: string;
  /** Short y title: vega estimates text width generously, and a long rotated title pads the panel. */
  readonly unit: string;
  readonly value: (row: ResourceRow) => number | null;
  /** Whether a system's value means anything here (latency of an in-process script does not). */
  readonly applies: (data: RunChartData, row: ResourceRow) => boolean;
}

const isLive = (data: RunChartData, row: ResourceRow): boolean =>
  data.run.systems.find((s) => s.id === row.systemId)?.evidenceClass === 'live_model';

const METRICS: readonly ResourceMetric[] = [
  {
    metric: 'Tokens (prompt + completion, count)',
    unit: 'tokens',
    value: (r) => r.promptTokens + r.completionTokens,
    applies: () => true,
  },
  { metric: 'Cost (USD)', unit: 'USD', value: (r) => r.costUsd, applies: () => true },
  {
    metric: 'Median latency (ms)',
    unit: 'ms',
    value: (r) => r.latencyMsMedian,
    applies: isLive,
  },
];

/** What the resources figure draws, and the panels it leaves out with the reason. */
export interface ResourcePanels {
  readonly drawn: readonly string[];
  readonly omitted: readonly { readonly metric: string; readonly reason: string }[];
}

/**
 * Which panels of the resources figure have something to show: a metric is drawn only when some
 * value is above zero; latency only for live models (a scripted system's latency is the time an
 * in-process script took, not a model's).
 */
export function resourcePanels(data: RunChartData): ResourcePanels {
  const drawn: string[] = [];
  const omitted: { metric: string; reason: string }[] = [];
  for (const m of METRICS) {
    const applicable = data.resources.filter((r) => m.applies(data, r));
    if (applicable.length === 0) {
      omitted.push({
        metric: m.metric,
        reason: 'no live model in the run (a scripted system’s latency is not a model latency)',
      });
    } else if (!applicable.some((r) => (m.value(r) ?? 0) > 0)) {
      omitted.push({ metric: m.metric, reason: 'zero for every system and cell' });
    } else drawn.push(m.metric);
  }
  return { drawn, omitted };
}

/** A sentence naming the panels left out of the resources figure, or null when none was. */
export function omittedPanelsText(panels: ResourcePanels): string | null {
  if (panels.omitted.length === 0) return null;
  return `Not drawn: ${panels.omitted.map((o) => `${o.metric} (${o.reason})`).join('; ')}.`;
}

/**
 * Figure: tokens, cost and median latency per system and experiment cell. Panels with nothing to
 * show are left out and named; with no panel left there is no figure (the report says why).
 */
export function resourcesFigure(data: RunChartData): FigureDefinition | null {
  if (data.resources.length === 0) return null;
  const panels = resourcePanels(data);
  if (panels.drawn.length === 0) return null;
  const metrics = METRICS.filter((m) => panels.drawn.includes(m.metric));
  const rows: FigureRow[] = data.resources.flatMap((r) => {
    const cell = r.load === null ? r.experiment : `${r.experiment} N=${r.load}`;
    const system = systemLabel(data.run, r.systemId);
    return metrics
      .filter((m) => m.applies(data, r))
      .map((m) => ({ system, cell, metric: m.metric, value: m.value(r), requests: r.requests }));
  });
  const cells = [
    ...new Set(
      data.resources.map((r) => (r.load === null ? r.experiment : `${r.experiment} N=${r.load}`)),
    ),
  ];
  const title = 'Resource costs per experiment and load';
  const omitted = omittedPanelsText(panels);
  const subtitle = [
    'All attempts of the run, including incomplete blocks and failures. Token sums exclude requests that reported no usage (see table).',
    ...(omitted === null ? [] : [omitted]),
  ];
  const systems = systemOrder(data);
  const spec = {
    ...specOpening(data, title, subtitle, rows),
    vconcat: metrics.map((m) => ({
      width: COLUMN_PX - 140,
      height: 110,
      title: { text: m.metric, anchor: 'start', fontSize: 12 },
      transform: [{ filter: { field: 'metric', equal: m.metric } }],
      mark: { type: 'bar' },
      encoding: {
        x: {
          field: 'cell',
          type: 'nominal',
          title: 'Experiment and load',
          sort: cells,
          axis: { labelAngle: -30 },
        },
        xOffset: { field: 'system', type: 'nominal', sort: systems },
        y: {
          field: 'value',
          type: 'quantitative',
          title: m.unit,
          axis: { format: '~g' },
          scale: { zero: true },
        },
        color: {
          field: 'system',
          type: 'nominal',
          title: 'System',
          scale: systemColorScale(data.run),
          legend: bottomLegend('System', 5),
        },
      },
    })),
  };
  return {
    id: 'resources',
    svgPath: 'figures/resources.svg',
    title,
    description: `${title}: ${metrics.map((m) => m.metric).join(', ')}, per system and experiment cell.${omitted === null ? '' : ` ${omitted}`}`,
    caption: captionText(data, [
      'Tokens and USD are totals over every attempt of the cell, as reported by the endpoint (USD: charged or retained reservation); latency is the median per request of live models.',
      ...(omitted === null ? [] : [omitted]),
    ]),
    spec,
    columns: ['system', 'cell', 'metric', 'value', 'requests'],
    rows,
  };
}
