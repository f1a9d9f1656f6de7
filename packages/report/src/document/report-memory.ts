import { chartPartOf, type RunChartData } from '@chi/analysis';
import {
  type EimcEntry,
  isControlCondition,
  type MemoryPoint,
  systemLabel,
} from '@chi/analysis/internal';
import { memoryReportText, memoryTaxonomyReportText } from '@chi/experiments/internal';
import { cellLabel, compareText } from '@chi/figures/internal';
import { formatEstimate, formatNumber, formatRatio } from './format-number';
import { blankControlLeakText, systemBoundaryText } from './memory-boundary';
import type { ReportBlock } from './report-block';
import { transcriptReplayBlocks } from './report-replay';
import {
  type ExperimentSection,
  estimateCell,
  experimentOpening,
  figureBlocks,
  type HeadlineColumn,
  heading,
  intervalLabel,
  optionalEstimateCell,
  paragraph,
  type ReportInput,
  worldsCell,
} from './report-section';

/** The one figure shown with the summary: the capacity curves (when the run has memory). */
const HEADLINE_FIGURE = 'memory-capacity';

const STATUS_TEXT: Record<EimcEntry['status'], string> = {
  capacity: 'capacity',
  lower_bound: 'lower bound (largest tested load passes: right-censored)',
  no_passing_load: 'no passing load (not zero)',
};

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
    ...experimentOpening(input, memoryReportText),
    ...boundary,
    ...(figureBlocks(input, HEADLINE_FIGURE).length === 0
      ? []
      : [paragraph('The capacity curves are the headline figure, under the Summary.')]),
    ...(notebook.length === 0
      ? [paragraph(memoryReportText.absent)]
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
    ...experimentOpening(input, memoryTaxonomyReportText),
    ...figureBlocks(input, 'failure-taxonomy'),
    taxonomyTable(input.data),
  ];
}

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

/**
 * The memory experiment's headline columns: EIMC at every tau, and Q_M at the smallest and
 * largest tested load of the notebook curve (none without a notebook curve).
 */
function memoryHeadlineColumns(data: RunChartData): HeadlineColumn[] {
  const part = chartPartOf(data, 'memory');
  const notebookLoads = part.memory.filter((p) => p.condition === 'notebook').map((p) => p.load);
  if (notebookLoads.length === 0) return [];
  const loads = [...new Set([Math.min(...notebookLoads), Math.max(...notebookLoads)])];
  const pct = intervalLabel(data);
  return [
    ...data.run.analysis.taus.map((tau) => ({
      header: `EIMC τ ${formatNumber(tau, 1)} [range]`,
      cell: (id: string) => eimcCell(part.eimc.find((e) => e.systemId === id && e.tau === tau)),
    })),
    ...loads.map((load) => ({
      header: `Q_M N = ${load} [${pct}]`,
      cell: (id: string) =>
        optionalEstimateCell(
          part.memory.find(
            (p) => p.systemId === id && p.condition === 'notebook' && p.load === load,
          )?.qualityScore,
        ),
    })),
  ];
}

/**
 * The memory experiment's part of the report: the capacity curves with the summary; its section
 * (EIMC, factors, controls), the transcript-replay baseline when the run has it, and the failure
 * taxonomy.
 */
export const memorySection: ExperimentSection = {
  experimentId: 'memory',
  summary: {
    columns: memoryHeadlineColumns,
    // the worlds of the system's capacity curve (its EIMC's)
    worlds: (data, systemId) =>
      chartPartOf(data, 'memory').eimc.find((e) => e.systemId === systemId)?.worlds,
  },
  headline: (input) => figureBlocks(input, HEADLINE_FIGURE),
  sections: [memoryBlocks, (input) => transcriptReplayBlocks(input.data), taxonomyBlocks],
};
