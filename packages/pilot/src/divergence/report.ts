import type { NotApplicableArm } from '@chi/experiments/internal';
import { DIVERGENCE_INTERVAL_METHOD_LABELS } from '@chi/experiments/internal';
import { type ReportBlock, renderHtml, renderMarkdown } from '@chi/report/internal';
import { RUN_FOLDER_DIRECTORY } from '@chi/run/internal';
import {
  type DivergenceAnalysis,
  type DivergenceSystemResult,
  FAMILY_WISE_STATEMENT,
  formatEstimate,
  formatFamilies,
} from './analyze';
import {
  type DivergenceFigure,
  divergenceBanner,
  divergenceFigures,
  divergenceSystemLabel,
} from './figures';
import { DIVERGENCE_ACCURACY_FILE, DIVERGENCE_WORLDS_FILE } from './release-file-names';
import { TASK_ACCURACY_CAPTION, taskAccuracyTable } from './task-accuracy-table';

export type { NotApplicableArm } from '@chi/experiments/internal';

/**
 * What the divergence report reads: the analysis, whose `notApplicableArms` (present only when a
 * system under memory policy `system` could not run an arm) becomes the "Arms not applicable" table.
 */
export type DivergenceReportInput = DivergenceAnalysis;

function systemBlocks(analysis: DivergenceAnalysis, system: DivergenceSystemResult): ReportBlock[] {
  const id = `system-${system.systemId.replace(/[^a-z0-9-]+/gi, '-').toLowerCase()}`;
  const banner = divergenceBanner({ ...analysis, systems: [system] });
  return [
    { kind: 'heading', level: 2, text: divergenceSystemLabel(system), id },
    ...(banner === null ? [] : [{ kind: 'banner' as const, text: banner }]),
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

/** The headline: excess divergence at the manifest's primary checkpoint, one row per system. */
function summaryTable(analysis: DivergenceAnalysis): ReportBlock {
  return {
    kind: 'table',
    caption: `Summary: excess divergence at the primary checkpoint ${analysis.primaryCheckpoint} (read from the manifest), with its pointwise interval and simultaneous band`,
    columns: ['system', 'excess divergence', 'excluded instances'],
    rows: analysis.systems.map((system) => {
      const primary = system.trajectory.find(
        (point) => point.checkpoint === analysis.primaryCheckpoint,
      );
      const excluded = analysis.excludedInstances.filter(
        (instance) => instance.systemId === system.systemId,
      ).length;
      return [
        divergenceSystemLabel(system),
        primary === undefined ? 'null (no such checkpoint)' : formatEstimate(primary.series.excess),
        String(excluded),
      ];
    }),
  };
}

function figureBlock(figure: DivergenceFigure, number: number): ReportBlock {
  return { kind: 'figure', figure, svg: figure.svg, number };
}

function notApplicableBlocks(arms: readonly NotApplicableArm[] | undefined): ReportBlock[] {
  if (arms === undefined || arms.length === 0) return [];
  return [
    { kind: 'heading', level: 2, text: 'Arms not applicable', id: 'not-applicable-arms' },
    {
      kind: 'table',
      caption:
        'Arms the protocol could not run on a system (a stateful system without instance control): not run, never faked; every series and dynamic that reads one is null with its reason',
      columns: ['system', 'arm', 'reason'],
      rows: arms.map((arm) => [arm.systemId, arm.arm, arm.reason]),
    },
  ];
}

function headerBlocks(analysis: DivergenceAnalysis): ReportBlock[] {
  const banner = divergenceBanner(analysis);
  return [
    {
      kind: 'heading',
      level: 1,
      text: `Divergence protocol ${analysis.protocol}`,
      id: 'divergence',
    },
    ...(banner === null ? [] : [{ kind: 'banner' as const, text: banner }]),
    {
      kind: 'paragraph',
      text: `Manifest SHA-256 \`${analysis.manifestSha256}\`. Primary checkpoint (read from the manifest): ${analysis.primaryCheckpoint}. Intervals are pointwise 95% intervals from the clustered bootstrap over worlds, read by the ${DIVERGENCE_INTERVAL_METHOD_LABELS[analysis.analysis.intervalMethod]} method. ${FAMILY_WISE_STATEMENT}`,
    },
    {
      kind: 'paragraph',
      text: `Every number's per-world values and world list are in \`${DIVERGENCE_WORLDS_FILE}\` (the rows with \`in_world_set\` true); task accuracy per arm and checkpoint in \`${DIVERGENCE_ACCURACY_FILE}\`; the CHIS log of every instance in \`${RUN_FOLDER_DIRECTORY.chis}/\`.`,
    },
    summaryTable(analysis),
  ];
}

/**
 * The divergence report as report blocks of `@chi/report` (the pilot report's document model):
 * the banner, a summary table, the figures, the series definitions, the excluded instances, the
 * arms not applicable (when the analysis lists them), and per system its trajectory, dynamics
 * and task accuracy; scripted and undeclared systems labelled in every heading.
 */
export function divergenceReportBlocks(analysis: DivergenceReportInput): ReportBlock[] {
  const [trajectory, dynamics, accuracy] = divergenceFigures(analysis) as [
    DivergenceFigure,
    DivergenceFigure,
    DivergenceFigure,
  ];
  return [
    ...headerBlocks(analysis),
    figureBlock(trajectory, 1),
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
    ...notApplicableBlocks(analysis.notApplicableArms),
    { kind: 'heading', level: 2, text: 'Dynamics and task accuracy', id: 'dynamics' },
    figureBlock(dynamics, 2),
    figureBlock(accuracy, 3),
    ...analysis.systems.flatMap((system) => systemBlocks(analysis, system)),
  ];
}

/** `report.md` of a divergence release: the report blocks as Markdown (`@chi/report`'s renderer). */
export function divergenceReportMarkdown(analysis: DivergenceReportInput): string {
  return renderMarkdown(divergenceReportBlocks(analysis));
}

/**
 * `report.html` of a divergence release: the same blocks as one self-contained page (inline SVG
 * figures, no scripts), the pilot report's renderer and style.
 */
export function divergenceReportHtml(analysis: DivergenceReportInput): string {
  return renderHtml(divergenceReportBlocks(analysis), `Divergence protocol ${analysis.protocol}`);
}
