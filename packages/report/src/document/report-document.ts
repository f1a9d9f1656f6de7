import { type RunChartData, runEvidenceBanner } from '@chi/analysis';
import { systemLabel } from '@chi/analysis/internal';
import { omittedPanelsText, resourcePanels } from '@chi/figures/internal';
import { RUN_FILE_NAME } from '@chi/run/internal';
import { labelCaptions } from './caption-labels';
import { EVIDENCE_MAP } from './evidence-map';
import { formatNumber, formatUsd } from './format-number';
import { intervalWords } from './interval-wording';
import { memorySystemMethodText } from './memory-boundary';
import type { ReportBlock } from './report-block';
import { REPORT_CASES_FILES } from './report-cases';
import { comparisonBlocks } from './report-comparisons';
import { tableOfContents } from './report-contents';
import { glossaryBlocks } from './report-glossary';
import {
  type ExperimentSection,
  figureBlocks,
  heading,
  includes,
  paragraph,
  type ReportInput,
  type ReportSection,
  systemSection,
} from './report-section';
import { BUILT_IN_SECTIONS } from './report-sections';
import { summaryBlocks } from './report-summary';
import { systemsBlocks } from './systems-section';

export type { PilotExperimentsIncluded, ReportInput } from './report-section';

function resourcesTable(data: RunChartData): ReportBlock {
  return {
    kind: 'table',
    caption:
      'Resource costs over every attempt (complete or not). Tokens are summed over requests that reported usage.',
    columns: [
      'System',
      'Experiment',
      'Load',
      'Requests (failed)',
      'Prompt tokens',
      'Completion tokens',
      'Reasoning tokens',
      'Requests without usage',
      'Cost (USD)',
      'Median latency (ms)',
      'Max latency (ms)',
    ],
    rows: data.resources.map((r) => [
      systemLabel(data.run, r.systemId),
      r.experiment,
      r.load === null ? '—' : String(r.load),
      `${r.requests} (${r.failedRequests})`,
      String(r.promptTokens),
      String(r.completionTokens),
      String(r.reasoningTokens),
      String(r.requestsWithoutUsage),
      formatUsd(r.costUsd),
      formatNumber(r.latencyMsMedian, 0),
      formatNumber(r.latencyMsMax, 0),
    ]),
  };
}

function missingnessBlocks(input: ReportInput): ReportBlock[] {
  const { data } = input;
  const blocks = data.missingness.blocks;
  const count = (status: string) => blocks.filter((b) => b.status === status).length;
  const notComplete = blocks.filter((b) => b.status !== 'complete');
  return [
    ...systemSection(input, 'Missingness, failures and exclusions', 'missingness'),
    paragraph(
      `Blocks: ${blocks.length} planned, ${count('complete')} complete, ${count('incomplete')} incomplete, ${count('not_started')} not started. Comparisons use complete blocks only; observations of incomplete blocks are published in scores/ with blockComplete false.`,
    ),
    {
      kind: 'table',
      caption: 'Blocks that are not complete, with the reasons.',
      columns: ['Block', 'Experiment', 'World', 'Load', 'Status', 'Reasons'],
      rows: notComplete.map((b) => [
        b.blockId,
        b.experiment,
        String(b.worldSeed),
        b.load === null ? '—' : String(b.load),
        b.status,
        b.reasons.join('; ') || '—',
      ]),
    },
    {
      kind: 'table',
      caption: `Failure and exclusion log (${RUN_FILE_NAME.failures}) counted by category and failure class. Model failures stay in their scored block; infrastructure failures make it incomplete.`,
      columns: ['Category', 'Failure', 'Entries'],
      rows: data.missingness.failures.map((f) => [f.category, f.failure ?? '—', String(f.count)]),
    },
    {
      kind: 'table',
      caption: 'Smoke checks: a bounded technical check, excluded from scored data.',
      columns: ['System', 'At', 'Passed', 'Detail'],
      rows: data.missingness.smoke.map((s) => [
        s.systemId,
        s.at,
        s.passed ? 'yes' : 'no',
        s.detail,
      ]),
    },
  ];
}

/** Systems and method: who was evaluated, the reference conditions, statistics and caveats. */
function methodBlocks(input: ReportInput): ReportBlock[] {
  const { data } = input;
  const a = data.run.analysis;
  return [
    ...systemSection(input, 'Systems and method', 'method'),
    ...systemsBlocks(data),
    paragraph(
      `Statistics: the resampling unit is the world. ${a.resamples} cluster-bootstrap resamples of worlds with analysis seed ${a.seed}, one multiset of planned worlds per replicate applied to every system, load, history and checkpoint; ${intervalWords(a.level)}, not simultaneous bands (the expanded percentile reads the replicates further out than the plain percentile, which undercovers at a few worlds: docs/coverage.md). A number that combines cells uses the worlds complete in every cell it combines, in the estimate and in every replicate: a capacity curve and its EIMC the worlds complete at every tested load, D(A,B), D(A,A2) and the divergence the worlds with A, B and A2 all valid at that checkpoint; tables give worlds used / complete in the cell / planned. No interval with fewer than two worlds used. Numbers resting on fewer than ${a.exploratoryBelowWorlds} worlds are exploratory; the pilot makes no winner-significance, population-wide or causal architecture-superiority claim.`,
    ),
    {
      kind: 'list',
      items: [
        `CHI: null. ${data.chi.reason}`,
        'Zero observed error is not proof of zero true error.',
        'Nothing here measures consciousness, subjective feelings or moral status.',
        memorySystemMethodText(data.run),
      ],
    },
  ];
}

function resourceBlocks(input: ReportInput): ReportBlock[] {
  const { data } = input;
  const figure = figureBlocks(input, 'resources');
  const omitted = omittedPanelsText(resourcePanels(data));
  return [
    ...systemSection(input, 'Resource costs', 'resources'),
    ...(figure.length === 0 && data.resources.length > 0
      ? [paragraph(`No resource figure: nothing to draw. ${omitted ?? ''}`.trim())]
      : figure),
    resourcesTable(data),
    ...corpusBlocks(data),
  ];
}

/**
 * Corpus bytes and tokens per load (issue 31): what each memory load shows a system, so a reader
 * can compare a load with a model's context. Bytes are measured on the encode request as sent;
 * tokens only where the endpoint reported them.
 */
function corpusBlocks(data: RunChartData): ReportBlock[] {
  if (data.corpus === undefined || data.corpus.length === 0) return [];
  return [
    {
      kind: 'table',
      caption:
        'Corpus per memory load: UTF-8 bytes of the encode request as sent (the records the encode prompt shows, with its instructions), over every system and world; prompt tokens as the endpoint reported them (none for scripted systems, which report no usage). A rough token count is bytes / 4.',
      columns: [
        'Load',
        'Encode requests',
        'Bytes (min / mean / max)',
        'About bytes / 4 tokens',
        'Reported prompt tokens (mean, requests)',
      ],
      rows: data.corpus.map((row) => [
        String(row.load),
        String(row.requests),
        `${row.bytesMin} / ${Math.round(row.bytesMean)} / ${row.bytesMax}`,
        String(Math.round(row.bytesMean / 4)),
        row.reportedPromptTokensMean === null
          ? 'not reported'
          : `${Math.round(row.reportedPromptTokensMean)} (${row.requestsWithTokens})`,
      ]),
    },
  ];
}

function caseLinkBlocks(input: ReportInput): ReportBlock[] {
  return [
    ...systemSection(input, 'Case examples', 'cases'),
    paragraph(
      `${input.caseExamples.length} case examples (for each system, condition, load and stratum: one passing and one failing probe where they exist, with the notebook excerpt and the full trace) are in their own file. Every probe's trace is in traces/.`,
    ),
    {
      kind: 'links',
      items: [
        {
          text: 'Case examples',
          href: REPORT_CASES_FILES.html,
          markdownHref: REPORT_CASES_FILES.markdown,
        },
      ],
    },
  ];
}

function evidenceMapBlocks(input: ReportInput): ReportBlock[] {
  return [
    ...systemSection(input, 'Evidence map', 'evidence-map'),
    paragraph(
      'These experiments address narrow memory and state hypotheses. The claims below need separate data that this release does not contain.',
    ),
    {
      kind: 'table',
      caption: 'Evidence map: what separate claims would need.',
      columns: ['Claim', 'What this release shows', 'Data the claim would need'],
      rows: EVIDENCE_MAP.map((row) => [row.claim, row.thisRelease, row.requiredData]),
    },
  ];
}

function comparisonSectionBlocks(input: ReportInput): ReportBlock[] {
  if (input.data.comparisons === undefined) return [];
  return [
    ...systemSection(input, 'Paired comparisons', 'comparisons'),
    ...figureBlocks(input, 'comparisons'),
    ...comparisonBlocks(input.data),
  ];
}

function filesBlocks(input: ReportInput): ReportBlock[] {
  return [
    ...systemSection(input, 'Files and verification', 'files'),
    paragraph(
      'Every number above is recomputed from the raw responses, answer keys and the recorded analysis seed by the verify command of the release README (`node code/verify.mjs .` inside a release that carries its code, otherwise `chi verify RELEASE_DIR`); `sha256sum -c SHA256SUMS` checks every file. Chart data is in chart-data/ (JSON and CSV), figures in figures/, per-probe traces in traces/. Browse any probe with `chi view RELEASE_DIR`.',
    ),
  ];
}

/** The sections of every experiment the run includes, in registry order. */
function experimentSections(
  input: ReportInput,
  experiments: readonly ExperimentSection[],
): ReportBlock[] {
  return experiments
    .filter((experiment) => includes(input, experiment.experimentId))
    .flatMap((experiment) => experiment.sections.flatMap((section) => section(input)));
}

/**
 * The sections of the report after the summary, in their fixed order, around the registered
 * experiments' sections. Each is one function of the report input, so a new table or section
 * lands in one place.
 */
function sectionsOf(experiments: readonly ExperimentSection[]): readonly ReportSection[] {
  return [
    methodBlocks,
    (input) => experimentSections(input, experiments),
    (input) => [...(input.extraSections ?? [])],
    comparisonSectionBlocks,
    resourceBlocks,
    missingnessBlocks,
    caseLinkBlocks,
    evidenceMapBlocks,
    (input) => glossaryBlocks(input.data),
    filesBlocks,
  ];
}

/** Numbers the figures in the order a reader meets them. */
function numberFigures(blocks: readonly ReportBlock[]): ReportBlock[] {
  let next = 0;
  return blocks.map((block) => (block.kind === 'figure' ? { ...block, number: ++next } : block));
}

/**
 * The report as blocks: a pure function of the chart data, the rendered figures and the case
 * examples, so the Markdown and the HTML say the same thing and `chi verify` can rebuild both.
 * It opens with the title, the evidence banner (once), the run facts, the summary table of every
 * system's headline estimates and what each included experiment shows with it (the capacity
 * curves), then a table of contents, then the sections in a fixed order, the registered
 * experiments' sections (`experiments`, default {@link BUILT_IN_SECTIONS}) in registry order;
 * figures are numbered in reading order, and every figure and table caption of a run that is not
 * all live carries the banner's short label.
 */
export function buildReportDocument(
  input: ReportInput,
  experiments: readonly ExperimentSection[] = BUILT_IN_SECTIONS,
): ReportBlock[] {
  const { data } = input;
  const banner = runEvidenceBanner(data.run);
  const opening: ReportBlock[] = [
    heading(1, `CHI/CHIS pilot release: ${data.run.protocol}`, 'top'),
    ...(banner === null ? [] : [{ kind: 'banner' as const, text: banner }]),
    paragraph(
      `Run ${data.run.runId}; manifest SHA-256 ${data.run.manifestSha256}; created ${data.run.createdAt}; last recorded activity ${data.run.lastActivityAt ?? 'none'}. ${data.run.worldSeeds.length} world seeds (${data.run.worldSeeds.join(', ')}).`,
    ),
    ...summaryBlocks(data, input.experiments, experiments),
    ...experiments.flatMap((experiment) =>
      experiment.headline === undefined || !includes(input, experiment.experimentId)
        ? []
        : experiment.headline(input),
    ),
  ];
  const body = sectionsOf(experiments).flatMap((section) => section(input));
  return labelCaptions(numberFigures([...opening, ...tableOfContents(body), ...body]), data.run);
}
