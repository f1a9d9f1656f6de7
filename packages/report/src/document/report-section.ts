import type { IntervalEstimate, RunChartData } from '@chi/analysis';
import type { ExperimentReportText } from '@chi/experiments/internal';
import type { FigureDefinition } from '@chi/figures';
import type { CaseExample } from '../release/case-examples';
import { formatEstimate } from './format-number';
import type { ReportBlock } from './report-block';

/** What the report is made of: numbers, rendered figures and case examples. */
export interface ReportInput {
  readonly data: RunChartData;
  /** Figures in report order, each with its rendered SVG. */
  readonly figures: readonly { readonly definition: FigureDefinition; readonly svg: string }[];
  readonly caseExamples: readonly CaseExample[];
  /**
   * Sections built elsewhere (e.g. the capacity profiles), placed after the experiments' sections
   * and listed in the contents.
   */
  readonly extraSections?: readonly ReportBlock[];
  /**
   * Which experiments the run includes, by experiment ID (from the manifest); the section of one
   * it leaves out (`chi pilot --templates goal-persistence`) is omitted with its contents entry
   * and figures. An experiment absent here is included, as every one is in the default pilot.
   */
  readonly experiments?: Readonly<Record<string, boolean>>;
}

/** Which of the pilot's own experiments a run includes (a {@link ReportInput.experiments}). */
export type PilotExperimentsIncluded = {
  readonly memory: boolean;
  readonly history: boolean;
  readonly behavior: boolean;
};

/** Whether the run includes an experiment (see {@link ReportInput.experiments}). */
export function includes(
  input: { readonly experiments?: Readonly<Record<string, boolean>> | undefined },
  experimentId: string,
): boolean {
  return input.experiments?.[experimentId] !== false;
}

/** One part of the report: blocks built from the report input. */
export type ReportSection = (input: ReportInput) => ReportBlock[];

/** One column of the summary's headline table: its header and its cell for a system. */
export interface HeadlineColumn {
  readonly header: string;
  cell(systemId: string): string;
}

/** What an experiment shows in the summary's headline table. */
export interface ExperimentSummary {
  /** Its columns, in order (none when the run has none of its data). */
  columns(data: RunChartData): readonly HeadlineColumn[];
  /** The worlds a system's numbers of this experiment rest on, or undefined when it has none. */
  worlds?(data: RunChartData, systemId: string): number | undefined;
}

/**
 * One experiment's part of the report, registered under its experiment ID: its sections in
 * order (placed after the systems and method), its columns of the summary's headline table, and
 * what it shows under the summary (e.g. the headline figure). All are omitted when the run leaves
 * the experiment out.
 */
export interface ExperimentSection {
  readonly experimentId: string;
  /** Its columns of the headline table. */
  readonly summary?: ExperimentSummary;
  /** Blocks shown under the summary table, before the contents. */
  readonly headline?: ReportSection;
  readonly sections: readonly ReportSection[];
}

/** The interval's label in a header: `95% CI`. */
export function intervalLabel(data: RunChartData): string {
  return `${Math.round(data.run.analysis.level * 100)}% CI`;
}

/** A heading block. */
export function heading(level: 1 | 2 | 3, text: string, id: string): ReportBlock {
  return { kind: 'heading', level, text, id };
}

/** A paragraph block. */
export function paragraph(text: string): ReportBlock {
  return { kind: 'paragraph', text };
}

/** An estimate with its interval, as a table cell. */
export function estimateCell(estimate: IntervalEstimate): string {
  return formatEstimate(estimate);
}

/** The world set of an estimate: `used / complete in the cell / planned`, e.g. `2 / 3 / 4`. */
export function worldsCell(estimate: IntervalEstimate): string {
  return `${estimate.worlds} / ${estimate.completeWorlds} / ${estimate.plannedWorlds}`;
}

/** A section's heading. The evidence banner is shown once, at the top; captions carry its short label. */
export function systemSection(_input: ReportInput, title: string, id: string): ReportBlock[] {
  return [heading(2, title, id)];
}

/** The figure `id` of the run, as a figure block (none when the run has no such figure). */
export function figureBlocks(input: ReportInput, id: string): ReportBlock[] {
  const index = input.figures.findIndex((f) => f.definition.id === id);
  const entry = input.figures[index];
  if (entry === undefined) return [];
  return [{ kind: 'figure', figure: entry.definition, svg: entry.svg, number: index + 1 }];
}

/** An experiment's section heading and its opening paragraph, from its folder's report text. */
export function experimentOpening(input: ReportInput, text: ExperimentReportText): ReportBlock[] {
  return [
    ...systemSection(input, text.title, text.anchor),
    ...(text.intro === null ? [] : [paragraph(text.intro)]),
  ];
}

/** An experiment's section when the run has no data for it: its heading and its `absent` sentence. */
export function experimentAbsent(input: ReportInput, text: ExperimentReportText): ReportBlock[] {
  return [...systemSection(input, text.title, text.anchor), paragraph(text.absent)];
}

/** An estimate with its interval, or `—` where the system has none. */
export function optionalEstimateCell(estimate: IntervalEstimate | undefined): string {
  return estimate === undefined ? '—' : formatEstimate(estimate);
}
