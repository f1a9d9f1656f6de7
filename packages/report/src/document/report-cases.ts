import type { RunChartData } from '@chi/analysis';
import { runEvidenceBanner } from '@chi/analysis';
import { systemLabel } from '@chi/analysis/internal';
import { cellLabel } from '@chi/figures/internal';
import { type CaseExample, formatTrace } from '../release/case-examples';
import type { ReportBlock } from './report-block';

/** The files of the case examples, beside report.md and report.html in the release. */
export const REPORT_CASES_FILES = {
  markdown: 'report-cases.md',
  html: 'report-cases.html',
} as const;

function caseBlocks(data: RunChartData, systemId: string, example: CaseExample): ReportBlock[] {
  const t = example.trace;
  const answer =
    t.answer.status === 'answered'
      ? `value ${t.answer.value ?? 'null'}, source ${t.answer.source ?? 'null'}`
      : `${t.answer.status}${t.answer.detail === null ? '' : ` (${t.answer.detail})`}`;
  return [
    {
      kind: 'heading',
      level: 3,
      text: `${systemLabel(data.run, systemId)} · ${cellLabel(example.load, example.condition)} · stratum ${example.stratum} · world ${example.worldSeed} · ${t.verdict.toUpperCase()} (${t.reason})`,
      id: `case-${systemId}-${example.condition}-${example.load}-${example.stratum}-${t.verdict}`,
    },
    {
      kind: 'paragraph',
      text: `Probe ${t.probeId}: key ${t.key}${t.asOf === null ? ' (current value)' : ` as of ${t.asOf}`}. Expected: ${t.expectedValue === null ? 'unknown (both null)' : `value ${t.expectedValue}, source ${t.expectedSource ?? 'null'}`}. Answer: ${answer}.`,
    },
    { kind: 'code', label: 'Notebook excerpt', text: example.notebookExcerpt },
    { kind: 'code', label: 'Trace', text: formatTrace(t) },
  ];
}

/**
 * The case-examples document (report-cases.md / report-cases.html), linked from the report: per
 * system a collapsed section holding, for each condition, load and stratum, one passing and one
 * failing probe with the notebook excerpt and the full trace.
 */
export function buildCasesDocument(
  data: RunChartData,
  examples: readonly CaseExample[],
): ReportBlock[] {
  const banner = runEvidenceBanner(data.run);
  const bySystem = new Map<string, CaseExample[]>();
  for (const example of examples)
    bySystem.set(example.systemId, [...(bySystem.get(example.systemId) ?? []), example]);
  return [
    { kind: 'heading', level: 1, text: `Case examples of run ${data.run.runId}`, id: 'top' },
    ...(banner === null ? [] : [{ kind: 'banner' as const, text: banner }]),
    {
      kind: 'paragraph',
      text: "For each system, condition, load and stratum: one passing and one failing probe where they exist, chosen by SHA-256 order of the probe identity (no random draw), with the part of the notebook that mentions the key and the full trace. Every probe's trace is in traces/.",
    },
    {
      kind: 'links',
      items: [{ text: 'Back to the report', href: 'report.html', markdownHref: 'report.md' }],
    },
    ...[...bySystem.entries()].map(([systemId, list]) => ({
      kind: 'details' as const,
      summary: `${systemLabel(data.run, systemId)}: ${list.length} case examples`,
      blocks: list.flatMap((example) => caseBlocks(data, systemId, example)),
    })),
  ];
}
