import type { RunChartData } from '@chi/analysis';
import type { ReportSystem } from '@chi/analysis/internal';
import { systemLabel } from '@chi/analysis/internal';
import { partialRunText, runCompleteness } from '../run-folder/run-completeness';
import { formatUsd } from './format-number';
import { intervalWords } from './interval-wording';
import type { ReportBlock } from './report-block';
import { type ExperimentSection, type HeadlineColumn, includes } from './report-section';
import { BUILT_IN_SECTIONS } from './report-sections';

/** The headline columns of the experiments the run includes, in registry order. */
function headlineColumns(
  data: RunChartData,
  sections: readonly ExperimentSection[],
  experiments: Readonly<Record<string, boolean>> | undefined,
): HeadlineColumn[] {
  return sections
    .filter((section) => includes({ experiments }, section.experimentId))
    .flatMap((section) => section.summary?.columns(data) ?? []);
}

/**
 * The worlds the system's headline numbers rest on: those of the first experiment, in registry
 * order, whose numbers of the system say (memory: its capacity curve's, else behavior's).
 */
function worldsCell(
  data: RunChartData,
  systemId: string,
  sections: readonly ExperimentSection[],
): string {
  const planned = data.run.worldSeeds.length;
  for (const section of sections) {
    const worlds = section.summary?.worlds?.(data, systemId);
    if (worlds !== undefined) return `${worlds} of ${planned}`;
  }
  return `— of ${planned}`;
}

function systemRow(
  data: RunChartData,
  system: ReportSystem,
  columns: readonly HeadlineColumn[],
  sections: readonly ExperimentSection[],
  reference: boolean,
): string[] {
  const id = system.id;
  const resources = data.resources.filter((r) => r.systemId === id);
  const requests = resources.reduce((sum, r) => sum + r.requests, 0);
  const failed = resources.reduce((sum, r) => sum + r.failedRequests, 0);
  const cost = resources.reduce((sum, r) => sum + r.costUsd, 0);
  return [
    `${systemLabel(data.run, id)}${reference ? ' (reference)' : ''}`,
    ...columns.map((column) => column.cell(id)),
    worldsCell(data, id, sections),
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
 * only for an experiment the run includes: each registered experiment gives its own
 * (`ExperimentSection.summary`, default {@link BUILT_IN_SECTIONS}).
 */
export function headlineTable(
  data: RunChartData,
  experiments?: Readonly<Record<string, boolean>>,
  sections: readonly ExperimentSection[] = BUILT_IN_SECTIONS,
): ReportBlock {
  const columns = headlineColumns(data, sections, experiments);
  return {
    kind: 'table',
    id: HEADLINE_TABLE_ID,
    caption:
      'Headline estimates per system. EIMC: the largest tested load whose Q_M (of world-mean factors) is at least tau; ≥: a lower bound (the largest load passes); none: no load passes, not zero. Excess divergence: D(A,B) − D(A,A2) at the preregistered checkpoint. R, C, A, I, frame change: behavior world means (intervals under "Behavioral probes"). A reference condition is not evaluated.',
    columns: ['System', ...columns.map((column) => column.header), 'Worlds', 'Failed', 'Cost'],
    rows: [
      ...evaluatedSystems(data).map((s) => systemRow(data, s, columns, sections, false)),
      ...referenceSystems(data).map((s) => systemRow(data, s, columns, sections, true)),
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
  sections: readonly ExperimentSection[] = BUILT_IN_SECTIONS,
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
    headlineTable(data, experiments, sections),
  ];
}
