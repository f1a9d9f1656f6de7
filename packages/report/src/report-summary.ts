import { chartPartOf, type IntervalEstimate, type RunChartData } from '@chi/analysis';
import type { BehaviorPart, EimcEntry, ReportSystem } from '@chi/analysis/internal';
import { systemLabel } from '@chi/analysis/internal';
import { formatEstimate, formatNumber, formatUsd } from './format-number';
import { intervalWords } from './interval-wording';
import type { ReportBlock } from './report-block';
import { partialRunText, runCompleteness } from './run-completeness';

/**
 * `64 [32, 64]` (a capacity), `≥ 256 [256, 256]` (a lower bound: the largest tested load passes),
 * `none` (no tested load passes; not zero). The status is the cell's form, which the table's
 * caption states once: the words in every cell made the table three screens tall (issue 37).
 */
function eimcCell(entry: EimcEntry | undefined): string {
  if (entry === undefined) return 'not computed';
  if (entry.value === null) return 'none';
  const range =
    entry.lower === null || entry.upper === null ? '' : ` [${entry.lower}, ${entry.upper}]`;
  return `${entry.status === 'lower_bound' ? '≥ ' : ''}${entry.value}${range}`;
}

/** An estimate with its interval, or `—` where the system has none. */
function estimateCell(estimate: IntervalEstimate | undefined): string {
  return estimate === undefined ? '—' : formatEstimate(estimate);
}

/** Which headline columns a run has: one per experiment it includes. */
interface HeadlineColumns {
  readonly taus: readonly number[];
  /** The smallest and largest tested load of the notebook curve, or empty without memory. */
  readonly loads: readonly number[];
  /** The manifest's preregistered primary checkpoint, when the run has the history experiment. */
  readonly checkpoint: number | null;
  /** The behavior indicators the run has (R, C, A, I, A-frame-change), one column each. */
  readonly behavior: readonly BehaviorIndicator[];
}

type BehaviorIndicator = BehaviorPart['behavior'][number]['indicator'];

const BEHAVIOR_ORDER: readonly BehaviorIndicator[] = ['R', 'C', 'A', 'I', 'A-frame-change'];

function headlineColumns(data: RunChartData, includesMemory: boolean): HeadlineColumns {
  const notebookLoads = chartPartOf(data, 'memory')
    .memory.filter((p) => p.condition === 'notebook')
    .map((p) => p.load);
  const memory = includesMemory && notebookLoads.length > 0;
  const loads = memory
    ? [...new Set([Math.min(...notebookLoads), Math.max(...notebookLoads)])]
    : [];
  return {
    taus: memory ? data.run.analysis.taus : [],
    loads,
    checkpoint:
      chartPartOf(data, 'history').historyDistances.length > 0
        ? data.run.analysis.primaryCheckpoint
        : null,
    behavior: BEHAVIOR_ORDER.filter((i) =>
      chartPartOf(data, 'behavior').behavior.some((b) => b.indicator === i),
    ),
  };
}

function columnNames(data: RunChartData, columns: HeadlineColumns): string[] {
  const pct = `${Math.round(data.run.analysis.level * 100)}% CI`;
  return [
    'System',
    ...columns.taus.map((tau) => `EIMC τ ${formatNumber(tau, 1)} [range]`),
    ...columns.loads.map((load) => `Q_M N = ${load} [${pct}]`),
    ...(columns.checkpoint === null
      ? []
      : [`Excess divergence, checkpoint ${columns.checkpoint} [${pct}]`]),
    ...columns.behavior.map((i) => (i === 'A-frame-change' ? 'Frame change' : i)),
    'Worlds',
    'Failed',
    'Cost',
  ];
}

/** A behavior indicator's world mean (its interval is in "Behavioral probes"). */
function behaviorCell(data: RunChartData, systemId: string, indicator: BehaviorIndicator): string {
  const row = chartPartOf(data, 'behavior').behavior.find(
    (b) => b.systemId === systemId && b.indicator === indicator,
  );
  if (row === undefined) return '—';
  return row.value.estimate === null ? 'undefined' : formatNumber(row.value.estimate);
}

/** The worlds the system's headline numbers rest on: its capacity curve's, else its behavior's. */
function worldsCell(data: RunChartData, systemId: string): string {
  const planned = data.run.worldSeeds.length;
  const eimc = chartPartOf(data, 'memory').eimc.find((e) => e.systemId === systemId);
  if (eimc !== undefined) return `${eimc.worlds} of ${planned}`;
  const behavior = chartPartOf(data, 'behavior').behavior.filter((b) => b.systemId === systemId);
  if (behavior.length > 0)
    return `${Math.max(...behavior.map((b) => b.value.worlds))} of ${planned}`;
  return `— of ${planned}`;
}

function systemRow(
  data: RunChartData,
  system: ReportSystem,
  columns: HeadlineColumns,
  reference: boolean,
): string[] {
  const id = system.id;
  const notebook = (load: number) =>
    chartPartOf(data, 'memory').memory.find(
      (p) => p.systemId === id && p.condition === 'notebook' && p.load === load,
    );
  const divergence = chartPartOf(data, 'history').historyDistances.find(
    (d) => d.systemId === id && d.checkpoint === columns.checkpoint,
  );
  const resources = data.resources.filter((r) => r.systemId === id);
  const requests = resources.reduce((sum, r) => sum + r.requests, 0);
  const failed = resources.reduce((sum, r) => sum + r.failedRequests, 0);
  const cost = resources.reduce((sum, r) => sum + r.costUsd, 0);
  return [
    `${systemLabel(data.run, id)}${reference ? ' (reference)' : ''}`,
    ...columns.taus.map((tau) =>
      eimcCell(chartPartOf(data, 'memory').eimc.find((e) => e.systemId === id && e.tau === tau)),
    ),
    ...columns.loads.map((load) => estimateCell(notebook(load)?.qualityScore)),
    ...(columns.checkpoint === null ? [] : [estimateCell(divergence?.divergence)]),
    ...columns.behavior.map((indicator) => behaviorCell(data, id, indicator)),
    worldsCell(data, id),
    `${failed} of ${requests}`,
    formatUsd(cost),
  ];
}

/** Capped systems are evaluated; an uncapped notebook is a declared reference, never evaluated. */
export function evaluatedSystems(data: RunChartData): ReportSystem[] {
  return data.run.systems.filter((s) => !s.uncappedNotebook);
}

/** Declared reference conditions (uncapped notebook): listed apart from the evaluated systems. */
export function referenceSystems(data: RunChartData): ReportSystem[] {
  return data.run.systems.filter((s) => s.uncappedNotebook);
}

/** The headline table's HTML id (its wrapper's): compact styling, and what tests measure. */
export const HEADLINE_TABLE_ID = 'headline-table';

/**
 * The headline table: one row per system (evaluated systems first, then the reference
 * conditions, labelled) with EIMC at every tau and its status, Q_M at the smallest and largest
 * tested load, the excess divergence at the manifest's preregistered primary checkpoint, the
 * behavior indicators, the worlds the numbers rest on, failed requests and cost. A column exists
 * only for an experiment the run includes.
 */
export function headlineTable(data: RunChartData, includesMemory = true): ReportBlock {
  const columns = headlineColumns(data, includesMemory);
  return {
    kind: 'table',
    id: HEADLINE_TABLE_ID,
    caption:
      'Headline estimates per system. EIMC: the largest tested load whose Q_M (of world-mean factors) is at least tau; ≥: a lower bound (the largest load passes); none: no load passes, not zero. Excess divergence: D(A,B) − D(A,A2) at the preregistered checkpoint. R, C, A, I, frame change: behavior world means (intervals under "Behavioral probes"). A reference condition is not evaluated.',
    columns: columnNames(data, columns),
    rows: [
      ...evaluatedSystems(data).map((s) => systemRow(data, s, columns, false)),
      ...referenceSystems(data).map((s) => systemRow(data, s, columns, true)),
    ],
  };
}

/**
 * The summary the report (and `chi view`) opens with: one paragraph of run facts, a partial
 * run's completeness first, then one table of every system's headline estimates
 * ({@link headlineTable}). Everything else (factors, denominators, intervals of the behavior
 * indicators) is in the sections below.
 */
export function summaryBlocks(
  data: RunChartData,
  experiments?: Readonly<Record<string, boolean>>,
): ReportBlock[] {
  const partial = partialRunText(runCompleteness(data));
  return [
    { kind: 'heading', level: 2, text: 'Summary', id: 'summary' },
    ...(partial === null
      ? []
      : [
          {
            kind: 'banner' as const,
            text: `Partial run — ${partial}: every estimate rests on the complete worlds only.`,
          },
        ]),
    {
      kind: 'paragraph',
      text: `${data.run.systems.length} systems, ${data.run.worldSeeds.length} worlds. Intervals are ${intervalWords(data.run.analysis.level)}; every figure states its denominator. Terms are defined in the Glossary.`,
    },
    headlineTable(data, experiments?.memory !== false),
  ];
}
