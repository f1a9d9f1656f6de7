import {
  chartPartOf,
  type IntervalEstimate,
  type RunChartData,
  runEvidenceBanner,
} from '@chi/analysis';
import {
  type EimcEntry,
  isControlCondition,
  type MemoryPoint,
  systemLabel,
} from '@chi/analysis/internal';
import type { FigureDefinition } from '@chi/figures';
import { cellLabel, compareText, omittedPanelsText, resourcePanels } from '@chi/figures/internal';
import { RUN_FILE_NAME } from '@chi/run/internal';
import { labelCaptions } from './caption-labels';
import type { CaseExample } from './case-examples';
import { EVIDENCE_MAP } from './evidence-map';
import { formatEstimate, formatNumber, formatRatio, formatUsd } from './format-number';
import { intervalWords } from './interval-wording';
import {
  blankControlLeakText,
  memorySystemMethodText,
  systemBoundaryText,
} from './memory-boundary';
import type { ReportBlock } from './report-block';
import { REPORT_CASES_FILES } from './report-cases';
import { comparisonBlocks } from './report-comparisons';
import { tableOfContents } from './report-contents';
import { glossaryBlocks } from './report-glossary';
import { transcriptReplayBlocks } from './report-replay';
import { summaryBlocks } from './report-summary';
import { wordingAgreementBlocks } from './report-wording';
import { systemsBlocks } from './systems-section';

/** What the report is made of: numbers, rendered figures and case examples. */
export interface ReportInput {
  readonly data: RunChartData;
  /** Figures in report order, each with its rendered SVG. */
  readonly figures: readonly { readonly definition: FigureDefinition; readonly svg: string }[];
  readonly caseExamples: readonly CaseExample[];
  /**
   * Sections built elsewhere (e.g. the capacity profiles), placed after the behavioral section
   * and listed in the contents.
   */
  readonly extraSections?: readonly ReportBlock[];
  /**
   * Which of the pilot's own experiments the run includes (from the manifest); a section of one
   * it leaves out (`chi pilot --templates goal-persistence`) is omitted with its contents entry
   * and figures. Absent: every one, as in the default pilot.
   */
  readonly experiments?: PilotExperimentsIncluded;
}

/** Which of the pilot's own experiments a run includes. */
export interface PilotExperimentsIncluded {
  readonly memory: boolean;
  readonly history: boolean;
  readonly behavior: boolean;
}

/** A section shown only when the run includes `experiment` (see {@link ReportInput.experiments}). */
function onlyWith(
  experiment: keyof PilotExperimentsIncluded,
  section: (input: ReportInput) => ReportBlock[],
): (input: ReportInput) => ReportBlock[] {
  return (input) => (input.experiments?.[experiment] === false ? [] : section(input));
}

/** The one figure shown with the summary: the capacity curves (when the run has memory). */
const HEADLINE_FIGURE = 'memory-capacity';

const STATUS_TEXT: Record<EimcEntry['status'], string> = {
  capacity: 'capacity',
  lower_bound: 'lower bound (largest tested load passes: right-censored)',
  no_passing_load: 'no passing load (not zero)',
};

function heading(level: 1 | 2 | 3, text: string, id: string): ReportBlock {
  return { kind: 'heading', level, text, id };
}

function paragraph(text: string): ReportBlock {
  return { kind: 'paragraph', text };
}

function estimateCell(estimate: IntervalEstimate): string {
  return formatEstimate(estimate);
}

/** The world set of an estimate: `used / complete in the cell / planned`, e.g. `2 / 3 / 4`. */
function worldsCell(estimate: IntervalEstimate): string {
  return `${estimate.worlds} / ${estimate.completeWorlds} / ${estimate.plannedWorlds}`;
}

/** A section's heading. The evidence banner is shown once, at the top; captions carry its short label. */
function systemSection(_input: ReportInput, title: string, id: string): ReportBlock[] {
  return [heading(2, title, id)];
}

function figureBlocks(input: ReportInput, id: string): ReportBlock[] {
  const index = input.figures.findIndex((f) => f.definition.id === id);
  const entry = input.figures[index];
  if (entry === undefined) return [];
  return [{ kind: 'figure', figure: entry.definition, svg: entry.svg, number: index + 1 }];
}

function memoryTable(
  data: RunChartData,
  points: readonly MemoryPoint[],
  caption: string,
): ReportBlock {
  return {
    kind: 'table',
    caption,
    columns: [
      'System',
      'Cell',
      'Worlds used / complete / planned (incomplete, missing blocks)',
      'Q_M of world-mean factors [95% CI]',
      'Mean within-world Q_M [95% CI]',
      'r',
      't',
      's',
      'u',
      'i',
      '1 − f',
      'f lures: unsupported affirmative',
      'f lures: invalid',
    ],
    rows: points.map((p) => [
      systemLabel(data.run, p.systemId),
      cellLabel(p.load, p.condition),
      `${worldsCell(p.qualityScore)} (${p.blocks.incomplete}, ${p.blocks.missing})${p.exploratory ? ' exploratory' : ''}`,
      estimateCell(p.qualityScore),
      estimateCell(p.meanWithinWorldQualityScore),
      `${formatEstimate(p.factors.r)}; ${formatRatio(p.strata.r)}`,
      `${formatEstimate(p.factors.t)}; ${formatRatio(p.strata.t)}`,
      `${formatEstimate(p.factors.s)}; ${formatRatio(p.strata.s)}`,
      `${formatEstimate(p.factors.u)}; ${formatRatio(p.strata.u)}`,
      `${formatEstimate(p.factors.i)}; ${formatRatio(p.strata.i)}`,
      `${formatEstimate(p.factors.oneMinusF)}; f = ${formatRatio(p.strata.f)}`,
      formatRatio(p.unsupportedAffirmativeLures),
      formatRatio(p.invalidLures),
    ]),
  };
}

function eimcTable(data: RunChartData): ReportBlock {
  // A system whose curve has a load without a complete world gets no EIMC: say so in the table.
  const undefinedRows = data.run.systems
    .filter((s) => !chartPartOf(data, 'memory').eimc.some((e) => e.systemId === s.id))
    .flatMap((s) => {
      const curve = chartPartOf(data, 'memory').memory.filter(
        (p) => p.systemId === s.id && p.condition === 'notebook',
      );
      if (curve.length === 0 || curve.every((p) => p.qualityScore.estimate !== null)) return [];
      const missing = curve.filter((p) => p.qualityScore.completeWorlds === 0).map((p) => p.load);
      return [
        [
          systemLabel(data.run, s.id),
          'all',
          'not computed',
          missing.length > 0
            ? `undefined: no complete world at load ${missing.join(', ')}`
            : 'undefined: no world is complete at every tested load',
          '—',
          '—',
          '—',
          '—',
          '—',
          '0',
        ],
      ];
    });
  return {
    kind: 'table',
    caption:
      'EIMC_tau: the largest tested load whose Q_M of world-mean factors is at least tau, read off the capacity curve above. No extrapolation to untested loads. The curve, its EIMC and every bootstrap replicate use one world set: the worlds complete at every tested load. The interval is the percentile range of EIMC over bootstrap replicates that had a passing load.',
    columns: [
      'System',
      'tau',
      'EIMC (target keys)',
      'Status',
      'Passing loads',
      'Nonmonotone',
      'Sustained-prefix capacity',
      'Bootstrap range',
      'Replicates without a passing load',
      'Worlds used (complete at every load)',
    ],
    rows: chartPartOf(data, 'memory')
      .eimc.map((e) => [
        systemLabel(data.run, e.systemId),
        formatNumber(e.tau, 1),
        e.value === null ? 'null' : String(e.value),
        STATUS_TEXT[e.status],
        e.passingLoads.length === 0 ? 'none' : e.passingLoads.join(', '),
        e.nonmonotone ? 'yes' : 'no',
        e.sustainedPrefix === null ? 'null (smallest load fails)' : String(e.sustainedPrefix),
        e.lower === null || e.upper === null ? 'none' : `[${e.lower}, ${e.upper}]`,
        `${e.noPassingReplicates} of ${e.resamples}`,
        String(e.worlds),
      ])
      .concat(undefinedRows),
  };
}

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

function taxonomyTable(data: RunChartData): ReportBlock {
  const groups = new Map<
    string,
    { system: string; cell: string; counts: Map<string, number>; total: number }
  >();
  for (const t of chartPartOf(data, 'memory').taxonomy) {
    const key = `${t.systemId}\u0000${t.condition}\u0000${t.load}`;
    const group = groups.get(key) ?? {
      system: systemLabel(data.run, t.systemId),
      cell: cellLabel(t.load, t.condition),
      counts: new Map(),
      total: 0,
    };
    group.counts.set(t.reason, (group.counts.get(t.reason) ?? 0) + t.count);
    group.total += t.count;
    groups.set(key, group);
  }
  return {
    kind: 'table',
    caption: 'Probe outcomes by reason (each probe of a complete world has exactly one reason).',
    columns: ['System', 'Cell', 'Probes', 'Outcomes (count)'],
    rows: [...groups.values()].map((g) => [
      g.system,
      g.cell,
      String(g.total),
      [...g.counts.entries()]
        .filter(([, count]) => count > 0)
        .sort(([ra, a], [rb, b]) => b - a || compareText(ra, rb))
        .map(([reason, count]) => `${reason} ${count}`)
        .join('; '),
    ]),
  };
}

function vectorText(coordinates: readonly (number | null)[]): string {
  return coordinates.map((c) => (c === null ? '×' : String(c))).join(' ');
}

function vectorTable(data: RunChartData): ReportBlock {
  const rows = new Map<string, string[]>();
  for (const v of chartPartOf(data, 'history').historyVectors) {
    const key = `${v.systemId}\u0000${v.worldSeed}\u0000${v.history}`;
    const row = rows.get(key) ?? [
      systemLabel(data.run, v.systemId),
      String(v.worldSeed),
      v.history,
      v.blockComplete ? 'complete' : 'incomplete (excluded)',
    ];
    row.push(vectorText(v.coordinates));
    rows.set(key, row);
  }
  return {
    kind: 'table',
    caption: 'Decision vector of each world, history and checkpoint (environments in world order).',
    columns: ['System', 'World', 'History', 'Block', 'c0', 'c1', 'c2', 'c3', 'c4'],
    rows: [...rows.values()],
  };
}

/** The history experiment's per-checkpoint table. */
function historyCheckpointTable(data: RunChartData): ReportBlock {
  return {
    kind: 'table',
    caption:
      'Per checkpoint: accuracy and explicit-unknown rate (world means, 95% CI), invalid decisions pooled.',
    columns: [
      'System',
      'History',
      'Checkpoint',
      'Worlds used / complete / planned',
      'Accuracy',
      'Explicit-unknown rate',
      'Invalid decisions',
      'Worlds with a fully valid vector',
    ],
    rows: chartPartOf(data, 'history').history.map((h) => [
      systemLabel(data.run, h.systemId),
      h.history,
      String(h.checkpoint),
      worldsCell(h.accuracy),
      formatEstimate(h.accuracy),
      formatEstimate(h.unknownRate),
      formatRatio(h.invalid),
      String(h.validVectors),
    ]),
  };
}

function historyBlocks(input: ReportInput): ReportBlock[] {
  const { data } = input;
  if (chartPartOf(data, 'history').history.length === 0) {
    return [
      ...systemSection(input, 'History experiment', 'history'),
      paragraph('The run has no history experiment.'),
    ];
  }
  return [
    ...systemSection(input, 'History experiment', 'history'),
    paragraph(
      'Four binary environments per world. Histories A and B carry opposite evidence; A2 repeats A (same-history stochastic control). Checkpoint 0: no evidence (unknown warranted); 1: ingest; 2 and 3: neutral maintenance invocations; 4: authoritative correction. Checkpoints count invocations, not days.',
    ),
    ...figureBlocks(input, 'history-accuracy'),
    ...figureBlocks(input, 'history-unknown'),
    {
      kind: 'details',
      summary: `Accuracy and explicit-unknown rate per checkpoint (${chartPartOf(data, 'history').history.length} rows)`,
      blocks: [historyCheckpointTable(data)],
    },
    {
      kind: 'details',
      summary: `Decision vectors per world (${chartPartOf(data, 'history').historyVectors.length / 5} trajectories): A = 0, unknown = 0.5, B = 1, invalid = ×`,
      blocks: [vectorTable(data)],
    },
    ...figureBlocks(input, 'history-distance'),
    {
      kind: 'table',
      caption:
        'Distances between decision vectors. All three numbers of a row use one world set: the complete worlds whose A, B and A2 vectors are all fully valid at that checkpoint, so the divergence is exactly D(A,B) − D(A,A2); null where no world qualifies.',
      columns: [
        'System',
        'Checkpoint',
        'Worlds used / complete / planned',
        'D(A,B)',
        'D(A,A2)',
        'Divergence D(A,B) − D(A,A2)',
      ],
      rows: chartPartOf(data, 'history').historyDistances.map((d) => [
        systemLabel(data.run, d.systemId),
        String(d.checkpoint),
        worldsCell(d.divergence),
        formatEstimate(d.distanceAB),
        formatEstimate(d.distanceAA2),
        formatEstimate(d.divergence),
      ]),
    },
    {
      kind: 'table',
      caption:
        'Continuity (1 − D between the neutral checkpoints 2 and 3, over the complete worlds with valid vectors at both checkpoints) and correction response (accuracy at 4 minus accuracy at 3 against the corrected rule, over the environments the correction changed).',
      columns: [
        'System',
        'History',
        'Continuity',
        'Worlds used / complete / planned',
        'Correction response',
        'Worlds used / complete / planned',
      ],
      rows: chartPartOf(data, 'history').historyDynamics.map((d) => [
        systemLabel(data.run, d.systemId),
        d.history,
        formatEstimate(d.continuity),
        worldsCell(d.continuity),
        formatEstimate(d.correctionResponse),
        worldsCell(d.correctionResponse),
      ]),
    },
  ];
}

function behaviorBlocks(input: ReportInput): ReportBlock[] {
  const { data } = input;
  if (chartPartOf(data, 'behavior').behavior.length === 0) {
    return [
      ...systemSection(input, 'Behavioral probes', 'behavior'),
      paragraph('The run has no behavioral experiment.'),
    ];
  }
  return [
    ...systemSection(input, 'Behavioral probes', 'behavior'),
    paragraph(
      '24 registered items per world in two fresh-context halves: R eight rule/counterfactual tasks, C four next-action choices, A four matched positive/negative frame pairs, I four integration decisions. Task indicators, not validated axis scores.',
    ),
    ...figureBlocks(input, 'behavior'),
    {
      kind: 'table',
      caption: 'Task indicators: world mean with 95% CI, and pooled counts.',
      columns: [
        'System',
        'Indicator',
        'Worlds used / complete / planned',
        'World mean [95% CI]',
        'Pooled',
        'Invalid',
      ],
      rows: chartPartOf(data, 'behavior').behavior.map((b) => [
        systemLabel(data.run, b.systemId),
        b.indicator,
        worldsCell(b.value),
        formatEstimate(b.value),
        formatRatio(b.pooled),
        formatRatio(b.invalid),
      ]),
    },
  ];
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

function memoryBlocks(input: ReportInput): ReportBlock[] {
  const { data } = input;
  const notebook = chartPartOf(data, 'memory').memory.filter((p) => p.condition === 'notebook');
  const controls = chartPartOf(data, 'memory').memory.filter((p) =>
    isControlCondition(p.condition),
  );
  const controlLoads = new Set(controls.map((p) => p.load));
  const boundary = [
    systemBoundaryText(data.run, data.bytesStored ?? []),
    blankControlLeakText(data),
  ].flatMap((text) => (text === null ? [] : [paragraph(text)]));
  return [
    ...systemSection(input, 'Memory capacity', 'memory'),
    ...boundary,
    ...(figureBlocks(input, HEADLINE_FIGURE).length === 0
      ? []
      : [paragraph('The capacity curves are the headline figure, under the Summary.')]),
    ...(notebook.length === 0
      ? [paragraph('The run has no memory experiment.')]
      : [
          eimcTable(data),
          memoryTable(
            data,
            notebook,
            'Every factor with its world mean, 95% CI and pooled numerator/denominator (passing probes / probes; for f: failures / lures).',
          ),
        ]),
    ...figureBlocks(input, 'memory-components'),
    ...(controls.length === 0
      ? []
      : [
          heading(3, `Controls at N = ${[...controlLoads].join(', ')}`, 'controls'),
          ...figureBlocks(input, 'memory-controls'),
          memoryTable(
            data,
            chartPartOf(data, 'memory').memory.filter(
              (p) => controlLoads.has(p.load) && p.condition !== 'replay',
            ),
            'The blank-notebook reset control and the oracle-evidence control beside the evaluated notebook result on the same blind questions. Oracle context is in-context evidence, not EIMC.',
          ),
        ]),
  ];
}

function taxonomyBlocks(input: ReportInput): ReportBlock[] {
  return [
    ...systemSection(input, 'Where capacity is lost: failure taxonomy', 'taxonomy'),
    ...figureBlocks(input, 'failure-taxonomy'),
    taxonomyTable(input.data),
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

/**
 * The sections of the report after the summary, in their fixed order. Each is one function of the
 * report input, so a new table or section lands in one place.
 */
const SECTIONS: readonly ((input: ReportInput) => ReportBlock[])[] = [
  methodBlocks,
  onlyWith('memory', memoryBlocks),
  onlyWith('memory', (input) => transcriptReplayBlocks(input.data)),
  onlyWith('memory', taxonomyBlocks),
  onlyWith('history', historyBlocks),
  onlyWith('behavior', behaviorBlocks),
  onlyWith('behavior', (input) => wordingAgreementBlocks(input.data)),
  (input) => [...(input.extraSections ?? [])],
  comparisonSectionBlocks,
  resourceBlocks,
  missingnessBlocks,
  caseLinkBlocks,
  evidenceMapBlocks,
  (input) => glossaryBlocks(input.data),
  filesBlocks,
];

/** Numbers the figures in the order a reader meets them. */
function numberFigures(blocks: readonly ReportBlock[]): ReportBlock[] {
  let next = 0;
  return blocks.map((block) => (block.kind === 'figure' ? { ...block, number: ++next } : block));
}

/**
 * The report as blocks: a pure function of the chart data, the rendered figures and the case
 * examples, so the Markdown and the HTML say the same thing and `chi verify` can rebuild both.
 * It opens with the title, the evidence banner (once), the run facts, the summary table of every
 * system's headline estimates and the headline figure, then a table of contents, then the
 * sections in a fixed order; figures are numbered in reading order, and every figure and table
 * caption of a run that is not all live carries the banner's short label.
 */
export function buildReportDocument(input: ReportInput): ReportBlock[] {
  const { data } = input;
  const banner = runEvidenceBanner(data.run);
  const opening: ReportBlock[] = [
    heading(1, `CHI/CHIS pilot release: ${data.run.protocol}`, 'top'),
    ...(banner === null ? [] : [{ kind: 'banner' as const, text: banner }]),
    paragraph(
      `Run ${data.run.runId}; manifest SHA-256 ${data.run.manifestSha256}; created ${data.run.createdAt}; last recorded activity ${data.run.lastActivityAt ?? 'none'}. ${data.run.worldSeeds.length} world seeds (${data.run.worldSeeds.join(', ')}).`,
    ),
    ...summaryBlocks(data, input.experiments?.memory !== false),
    ...(input.experiments?.memory === false ? [] : figureBlocks(input, HEADLINE_FIGURE)),
  ];
  const body = SECTIONS.flatMap((section) => section(input));
  return labelCaptions(numberFigures([...opening, ...tableOfContents(body), ...body]), data.run);
}
