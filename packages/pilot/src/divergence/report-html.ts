import { type ReportBlock, renderHtml } from '@chi/report/internal';
import {
  type DivergenceAnalysis,
  type DivergenceSystemResult,
  FAMILY_WISE_STATEMENT,
  formatEstimate,
  formatFamilies,
} from './analyze';
import { DIVERGENCE_INTERVAL_METHOD_LABELS } from './interval-method';
import { TASK_ACCURACY_CAPTION, taskAccuracyTable } from './task-accuracy-table';

/** The paragraph `report.html` replaces with the trajectory figure (the SVG inline). */
const FIGURE_SLOT = 'divergence-trajectory-figure';

function systemLabel(system: DivergenceSystemResult): string {
  return system.evidenceClass === 'scripted_baseline'
    ? `${system.systemId} (SCRIPTED BASELINE, not a model)`
    : `${system.systemId} (${system.evidenceClass})`;
}

function systemBlocks(analysis: DivergenceAnalysis, system: DivergenceSystemResult): ReportBlock[] {
  const id = `system-${system.systemId.replace(/[^a-z0-9-]+/gi, '-').toLowerCase()}`;
  return [
    { kind: 'heading', level: 2, text: systemLabel(system), id },
    ...(system.evidenceClass === 'scripted_baseline'
      ? [
          {
            kind: 'banner' as const,
            text: 'Scripted baseline: a reference system with known behaviour, not a measurement of a model.',
          },
        ]
      : []),
    { kind: 'paragraph', text: formatFamilies(system) },
    {
      kind: 'table',
      caption: `Excess divergence and the erasure, sham and swap arms by checkpoint (primary checkpoint ${analysis.primaryCheckpoint}, read from the manifest)`,
      columns: ['checkpoint', 'phase', 'excess', 'sham', 'erasure', 'swap', 'swap follows state'],
      rows: system.trajectory.map((point) => {
        const s = point.series;
        const mark = point.checkpoint === analysis.primaryCheckpoint ? ' (primary)' : '';
        return [
          `${point.checkpoint}${mark}`,
          point.phase,
          ...[s.excess, s.shamExcess, s.eraseExcess, s.swapExcess, s.swapFollowsState].map(
            formatEstimate,
          ),
        ];
      }),
    },
    {
      kind: 'table',
      caption: 'Every CHIS dynamic: value, definition and inputs (null with the reason)',
      columns: ['dynamic', 'value', 'definition', 'inputs'],
      rows: system.dynamics.map((dynamic) => [
        dynamic.name,
        formatEstimate(dynamic.value),
        dynamic.definition,
        dynamic.inputs,
      ]),
    },
    { kind: 'table', caption: TASK_ACCURACY_CAPTION, ...taskAccuracyTable(system) },
  ];
}

/**
 * The divergence report as report blocks of `@chi/report` (the pilot report's renderer): the
 * protocol, the trajectory figure's slot, the series definitions, the excluded instances, and per
 * system its trajectory and dynamics, scripted baselines labelled as such in the heading and a
 * banner.
 */
export function divergenceReportBlocks(analysis: DivergenceAnalysis): ReportBlock[] {
  return [
    {
      kind: 'heading',
      level: 1,
      text: `Divergence protocol ${analysis.protocol}`,
      id: 'divergence',
    },
    {
      kind: 'paragraph',
      text: `Manifest SHA-256 \`${analysis.manifestSha256}\`. Primary checkpoint (read from the manifest): ${analysis.primaryCheckpoint}. Intervals are pointwise 95% intervals from the clustered bootstrap over worlds, read by the ${DIVERGENCE_INTERVAL_METHOD_LABELS[analysis.analysis.intervalMethod]} method. ${FAMILY_WISE_STATEMENT}`,
    },
    { kind: 'paragraph', text: FIGURE_SLOT },
    { kind: 'heading', level: 2, text: 'Series', id: 'series' },
    {
      kind: 'list',
      items: Object.entries(analysis.seriesDefinitions).map(
        ([name, text]) => `\`${name}\`: ${text}`,
      ),
    },
    { kind: 'heading', level: 2, text: 'Excluded instances', id: 'excluded-instances' },
    {
      kind: 'table',
      caption:
        'Instances an infrastructure failure or an abandoned request ended: left out of every series and dynamic, never scored',
      columns: ['system', 'world', 'arm', 'request', 'reason'],
      rows: analysis.excludedInstances.map((instance) => [
        instance.systemId,
        String(instance.worldSeed),
        instance.arm,
        instance.requestId,
        instance.reason,
      ]),
    },
    ...analysis.systems.flatMap((system) => systemBlocks(analysis, system)),
  ];
}

/**
 * `report.html` of a divergence release: the report blocks rendered by `@chi/report`'s
 * `renderHtml` (one self-contained page, no scripts, the pilot report's style), with the
 * trajectory SVG inline in place of its slot.
 */
export function divergenceReportHtml(analysis: DivergenceAnalysis, svg: string): string {
  const html = renderHtml(
    divergenceReportBlocks(analysis),
    `Divergence protocol ${analysis.protocol}`,
  );
  const figure = `<figure id="figure-divergence-trajectory" class="chart">\n${svg.trimEnd()}\n<figcaption>Figure 1. Excess divergence (different-history minus same-history distance) by checkpoint, with the sham, erasure and swap arms beside it; pointwise 95% intervals over world clusters (not a claim: the tables give the simultaneous bands).</figcaption>\n</figure>`;
  return html.replace(`<p>${FIGURE_SLOT}</p>`, figure);
}
