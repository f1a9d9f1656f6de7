import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { writeSha256Sums } from '@chi/report';
import {
  runFolderPaths as divergencePaths,
  RUN_FILE_NAME,
  RUN_FOLDER_DIRECTORY,
} from '@chi/run/internal';
import {
  type DivergenceAnalysis,
  type DivergenceEstimate,
  type DivergenceSeries,
  type DivergenceSystemResult,
  FAMILY_WISE_STATEMENT,
  formatEstimate,
  formatFamilies,
} from './analyze';
import { DIVERGENCE_INTERVAL_METHOD_LABELS } from './interval-method';
import {
  DIVERGENCE_ACCURACY_FILE,
  DIVERGENCE_WORLDS_FILE,
  type DivergenceRecomputation,
  renderDivergenceEvidence,
} from './release-evidence';
import { copyDivergenceReleaseInputs } from './release-inputs';
import { divergenceReportHtml } from './report-html';
import { TASK_ACCURACY_CAPTION, taskAccuracyTable } from './task-accuracy-table';

/** The files of a divergence release, each a pure function of the analysis. */
export const DIVERGENCE_RELEASE_FILES = [
  'divergence.json',
  'divergence-trajectory.csv',
  'divergence-dynamics.csv',
  'divergence-trajectory.svg',
  'divergence.md',
  'report.html',
  'README.md',
  'divergence-accuracy.csv',
  'divergence-worlds.csv',
  `${RUN_FOLDER_DIRECTORY.chis}/<systemId>.jsonl`,
] as const;

/**
 * The raw inputs copied into the release, from which `chi verify` recomputes everything: the
 * frozen manifest and its hash, the plan and the hash-chained attempt log (replies, request
 * hashes and the notebook sources the runner applied); beside them the prompts and payloads as
 * sent, and the code that made the release.
 */
export const DIVERGENCE_RELEASE_INPUTS = [
  RUN_FILE_NAME.manifest,
  RUN_FILE_NAME.manifestSha256,
  RUN_FILE_NAME.plan,
  RUN_FILE_NAME.attempts,
  `${RUN_FOLDER_DIRECTORY.prompts}/`,
  RUN_FILE_NAME.requestIndex,
  `${RUN_FOLDER_DIRECTORY.payloads}/`,
  'code/',
] as const;

function number(value: number | null): string {
  return value === null ? '' : String(value);
}

function csvField(text: string): string {
  return /[",\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

function labelOf(system: DivergenceSystemResult): string {
  return system.evidenceClass === 'scripted_baseline'
    ? `${system.systemId} (SCRIPTED BASELINE, not a model)`
    : system.systemId;
}

/** Every series at every checkpoint, one row each. */
export function trajectoryCsv(analysis: DivergenceAnalysis): string {
  const rows = [
    'system,evidence_class,checkpoint,phase,primary,series,estimate,lower,upper,simultaneous_lower,simultaneous_upper,worlds,planned_worlds,reason',
  ];
  for (const system of analysis.systems) {
    for (const point of system.trajectory) {
      for (const [series, value] of Object.entries(point.series) as [
        DivergenceSeries,
        DivergenceEstimate,
      ][]) {
        rows.push(
          [
            system.systemId,
            system.evidenceClass,
            String(point.checkpoint),
            point.phase,
            String(point.checkpoint === analysis.primaryCheckpoint),
            series,
            number(value.estimate),
            number(value.lower),
            number(value.upper),
            number(value.simultaneousLower),
            number(value.simultaneousUpper),
            String(value.worlds),
            String(value.plannedWorlds),
            csvField(value.reason ?? ''),
          ].join(','),
        );
      }
    }
  }
  return `${rows.join('\n')}\n`;
}

/** Every dynamic per system, with its definition and inputs. */
export function dynamicsCsv(analysis: DivergenceAnalysis): string {
  const rows = [
    'system,evidence_class,dynamic,estimate,lower,upper,simultaneous_lower,simultaneous_upper,worlds,planned_worlds,reason,definition,inputs',
  ];
  for (const system of analysis.systems) {
    for (const dynamic of system.dynamics) {
      const value = dynamic.value;
      rows.push(
        [
          system.systemId,
          system.evidenceClass,
          dynamic.name,
          number(value.estimate),
          number(value.lower),
          number(value.upper),
          number(value.simultaneousLower),
          number(value.simultaneousUpper),
          String(value.worlds),
          String(value.plannedWorlds),
          csvField(value.reason ?? ''),
          csvField(dynamic.definition),
          csvField(dynamic.inputs),
        ].join(','),
      );
    }
  }
  return `${rows.join('\n')}\n`;
}

const FIGURE_SERIES: readonly {
  readonly series: DivergenceSeries;
  readonly label: string;
  readonly color: string;
  readonly dash: string;
  readonly offset: number;
}[] = [
  { series: 'excess', label: 'A vs B (main)', color: '#222222', dash: '', offset: -0.18 },
  { series: 'shamExcess', label: 'sham erasure', color: '#1f77b4', dash: '6 3', offset: -0.06 },
  { series: 'eraseExcess', label: 'erasure', color: '#d62728', dash: '2 3', offset: 0.06 },
  {
    series: 'swapExcess',
    label: 'swapped notebooks',
    color: '#2ca02c',
    dash: '10 3 2 3',
    offset: 0.18,
  },
];

function fixed(value: number): string {
  return value.toFixed(1);
}

function escapeXml(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

function panelSvg(
  analysis: DivergenceAnalysis,
  system: DivergenceSystemResult,
  top: number,
  width: number,
): string {
  const left = 70;
  const right = width - 200;
  const height = 200;
  const checkpoints = system.trajectory.map((point) => point.checkpoint);
  const minX = Math.min(...checkpoints) - 0.5;
  const maxX = Math.max(...checkpoints) + 0.5;
  const x = (value: number) => left + ((value - minX) / (maxX - minX)) * (right - left);
  const y = (value: number) => top + 30 + ((1 - value) / 2) * height;
  const parts: string[] = [];
  parts.push(
    `<text x="${left}" y="${top + 18}" font-size="14" font-weight="bold">${escapeXml(labelOf(system))}</text>`,
  );
  for (const point of system.trajectory) {
    const cx = fixed(x(point.checkpoint));
    parts.push(
      `<text x="${cx}" y="${fixed(y(-1) + 16)}" font-size="11" text-anchor="middle">${point.checkpoint} ${point.phase}</text>`,
    );
  }
  for (const tick of [-1, -0.5, 0, 0.5, 1]) {
    parts.push(
      `<line x1="${left}" x2="${right}" y1="${fixed(y(tick))}" y2="${fixed(y(tick))}" stroke="${tick === 0 ? '#888' : '#e5e5e5'}"/>`,
      `<text x="${left - 6}" y="${fixed(y(tick) + 4)}" font-size="11" text-anchor="end">${tick}</text>`,
    );
  }
  const primaryX = fixed(x(analysis.primaryCheckpoint));
  parts.push(
    `<line x1="${primaryX}" x2="${primaryX}" y1="${fixed(y(1))}" y2="${fixed(y(-1))}" stroke="#999" stroke-dasharray="3 3"/>`,
    `<text x="${primaryX}" y="${fixed(y(1) - 4)}" font-size="11" text-anchor="middle">primary (manifest)</text>`,
  );
  for (const style of FIGURE_SERIES) {
    const points = system.trajectory.flatMap((point) => {
      const value = point.series[style.series];
      return value.estimate === null ? [] : [{ checkpoint: point.checkpoint, value }];
    });
    const path = points
      .map(
        (point, index) =>
          `${index === 0 ? 'M' : 'L'}${fixed(x(point.checkpoint + style.offset))},${fixed(y(point.value.estimate as number))}`,
      )
      .join(' ');
    if (path !== '')
      parts.push(
        `<path d="${path}" fill="none" stroke="${style.color}" stroke-width="2"${style.dash === '' ? '' : ` stroke-dasharray="${style.dash}"`}/>`,
      );
    for (const point of points) {
      const px = fixed(x(point.checkpoint + style.offset));
      if (point.value.lower !== null && point.value.upper !== null)
        parts.push(
          `<line x1="${px}" x2="${px}" y1="${fixed(y(point.value.lower))}" y2="${fixed(y(point.value.upper))}" stroke="${style.color}"/>`,
        );
      parts.push(
        `<circle cx="${px}" cy="${fixed(y(point.value.estimate as number))}" r="3" fill="${style.color}"/>`,
      );
    }
  }
  FIGURE_SERIES.forEach((style, index) => {
    const ly = top + 50 + index * 20;
    parts.push(
      `<line x1="${right + 20}" x2="${right + 50}" y1="${ly}" y2="${ly}" stroke="${style.color}" stroke-width="2"${style.dash === '' ? '' : ` stroke-dasharray="${style.dash}"`}/>`,
      `<text x="${right + 56}" y="${ly + 4}" font-size="11">${escapeXml(style.label)}</text>`,
    );
  });
  return parts.join('\n');
}

/**
 * The divergence trajectory figure: per system, excess divergence at every checkpoint (exposure,
 * washout, later checkpoints) with its pointwise 95% interval, and the sham-erasure, erasure and
 * swap arms beside it (offset on the checkpoint axis so the whiskers do not overlap); the primary
 * checkpoint is the manifest's.
 */
export function trajectorySvg(analysis: DivergenceAnalysis): string {
  const width = 1000;
  const panel = 270;
  const height = 60 + panel * analysis.systems.length;
  const panels = analysis.systems.map((system, index) =>
    panelSvg(analysis, system, 50 + index * panel, width),
  );
  return `${[
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif">`,
    `<rect width="${width}" height="${height}" fill="#fff"/>`,
    `<text x="20" y="24" font-size="16" font-weight="bold">Excess divergence (different-history minus same-history distance) by checkpoint</text>`,
    `<text x="20" y="42" font-size="12">Pointwise 95% intervals over world clusters (${DIVERGENCE_INTERVAL_METHOD_LABELS[analysis.analysis.intervalMethod]}); not a claim: simultaneous bands in the tables. Scripted baselines are not measurements.</text>`,
    ...panels,
    '</svg>',
  ].join('\n')}\n`;
}

/** A Markdown table cell: a literal `|` would end the cell. */
function cell(text: string): string {
  return text.replaceAll('|', '\\|');
}

/**
 * The arms not run on a system (memory policy system without the state control they need), with
 * the reason, as a section of the divergence report; nothing when every arm ran (the release then
 * keeps its bytes). Kept apart so the section can move with the report's rendering.
 */
export function notApplicableArmsMarkdown(
  analysis: Pick<DivergenceAnalysis, 'notApplicableArms'>,
): string[] {
  const arms = analysis.notApplicableArms ?? [];
  if (arms.length === 0) return [];
  return [
    '',
    '## Arms not applicable',
    '',
    'Not run, never faked: every series and dynamic that reads one of these arms is null with its reason.',
    '',
    '| system | arm | reason |',
    '| --- | --- | --- |',
    ...arms.map((arm) => `| ${cell(arm.systemId)} | ${cell(arm.arm)} | ${cell(arm.reason)} |`),
  ];
}

/** The excluded-instances section of the divergence report. */
function excludedInstancesMarkdown(analysis: DivergenceAnalysis): string[] {
  return [
    '## Excluded instances',
    '',
    ...(analysis.excludedInstances.length === 0
      ? ['None: every instance ran every call of its arm.']
      : [
          'Incomplete instances (an infrastructure failure or an abandoned request ended the trajectory): left out of every series and dynamic, never scored.',
          '',
          '| system | world | arm | request | reason |',
          '| --- | --- | --- | --- | --- |',
          ...analysis.excludedInstances.map(
            (instance) =>
              `| ${cell(instance.systemId)} | ${instance.worldSeed} | ${cell(instance.arm)} | ${cell(instance.requestId)} | ${cell(instance.reason)} |`,
          ),
        ]),
  ];
}

/** The report section: trajectory tables and every dynamic with its definition. */
export function divergenceMarkdown(analysis: DivergenceAnalysis): string {
  const lines: string[] = [
    `# Divergence protocol ${analysis.protocol}`,
    '',
    `Manifest SHA-256 \`${analysis.manifestSha256}\`. Primary checkpoint (read from the manifest): **${analysis.primaryCheckpoint}**.`,
    `Intervals are pointwise 95% intervals from the clustered bootstrap over worlds (one multiset per replicate for every checkpoint, arm and dynamic), read by the ${DIVERGENCE_INTERVAL_METHOD_LABELS[analysis.analysis.intervalMethod]} method.`,
    FAMILY_WISE_STATEMENT,
    '',
    `Every number's per-world values and world list are in \`${DIVERGENCE_WORLDS_FILE}\` (the rows with \`in_world_set\` true); task accuracy per arm and checkpoint in \`${DIVERGENCE_ACCURACY_FILE}\`; the CHIS log of every instance in \`${RUN_FOLDER_DIRECTORY.chis}/\`.`,
    '',
    '![Excess divergence by checkpoint](divergence-trajectory.svg)',
    '',
    '## Series',
    '',
    ...Object.entries(analysis.seriesDefinitions).map(([name, text]) => `- \`${name}\`: ${text}`),
    '',
    ...excludedInstancesMarkdown(analysis),
    ...notApplicableArmsMarkdown(analysis),
  ];
  for (const system of analysis.systems) {
    lines.push('', `## ${labelOf(system)}`, '', formatFamilies(system), '');
    lines.push('| checkpoint | phase | excess | sham | erasure | swap | swap follows state |');
    lines.push('| --- | --- | --- | --- | --- | --- | --- |');
    for (const point of system.trajectory) {
      const s = point.series;
      const mark = point.checkpoint === analysis.primaryCheckpoint ? ' (primary)' : '';
      lines.push(
        `| ${point.checkpoint}${mark} | ${point.phase} | ${[s.excess, s.shamExcess, s.eraseExcess, s.swapExcess, s.swapFollowsState].map((value) => cell(formatEstimate(value))).join(' | ')} |`,
      );
    }
    lines.push('', '| dynamic | value | definition | inputs |', '| --- | --- | --- | --- |');
    for (const dynamic of system.dynamics) {
      lines.push(
        `| ${dynamic.name} | ${cell(formatEstimate(dynamic.value))} | ${cell(dynamic.definition)} | ${cell(dynamic.inputs)} |`,
      );
    }
    const accuracy = taskAccuracyTable(system);
    lines.push(
      '',
      `${TASK_ACCURACY_CAPTION}.`,
      '',
      `| ${accuracy.columns.join(' | ')} |`,
      `| ${accuracy.columns.map(() => '---').join(' | ')} |`,
      ...accuracy.rows.map((row) => `| ${row.map(cell).join(' | ')} |`),
    );
  }
  return `${lines.join('\n')}\n`;
}

/** The release files' contents, by name (pure: the same analysis gives the same bytes). */
export function renderDivergenceRelease(analysis: DivergenceAnalysis): Map<string, string> {
  return new Map<string, string>([
    ['divergence.json', `${JSON.stringify(analysis, null, 2)}\n`],
    ['divergence-trajectory.csv', trajectoryCsv(analysis)],
    ['divergence-dynamics.csv', dynamicsCsv(analysis)],
    ['divergence-trajectory.svg', trajectorySvg(analysis)],
    ['divergence.md', divergenceMarkdown(analysis)],
    ['report.html', divergenceReportHtml(analysis, trajectorySvg(analysis))],
  ]);
}

/** Every derived file of a divergence release, by release-relative path (pure). */
export function renderDivergenceReleaseFiles(
  recomputed: DivergenceRecomputation,
): Map<string, string> {
  return new Map([
    ...renderDivergenceRelease(recomputed.analysis),
    ...renderDivergenceEvidence(recomputed),
  ]);
}

/**
 * Writes the release folder of a divergence run: the raw inputs (manifest, plan, attempt log,
 * prompts, request index and payloads), the code that made it (`code/`), every derived file and
 * `SHA256SUMS` over all of them (the pilot release's format, `@chi/report`'s writer).
 */
export async function writeDivergenceRelease(
  runDir: string,
  recomputed: DivergenceRecomputation,
): Promise<string> {
  const paths = divergencePaths(runDir);
  await mkdir(paths.releaseDir, { recursive: true });
  // The release's raw part has the run folder's layout (`chi verify` reads it as one).
  const published = divergencePaths(paths.releaseDir);
  await copyFile(paths.manifest, published.manifest);
  await copyFile(paths.manifestSha256, published.manifestSha256);
  await copyFile(paths.plan, published.plan);
  await copyFile(paths.attempts, published.attempts);
  await copyDivergenceReleaseInputs(runDir, paths.releaseDir);
  for (const [name, text] of renderDivergenceReleaseFiles(recomputed)) {
    await mkdir(dirname(join(paths.releaseDir, name)), { recursive: true });
    await writeFile(join(paths.releaseDir, name), text);
  }
  // Last, over every other file: `sha256sum -c SHA256SUMS` inside the release checks it.
  await writeSha256Sums(paths.releaseDir);
  return paths.releaseDir;
}

/** One file `chi verify` found different from its recomputation. */
export interface DivergenceVerifyMismatch {
  readonly file: string;
  readonly problem: string;
}

/** Compares a release's derived files with a recomputation; an empty list means verified. */
export async function compareDivergenceRelease(
  releaseDir: string,
  recomputed: DivergenceRecomputation,
): Promise<DivergenceVerifyMismatch[]> {
  const mismatches: DivergenceVerifyMismatch[] = [];
  for (const [name, text] of renderDivergenceReleaseFiles(recomputed)) {
    let found: string;
    try {
      found = await readFile(join(releaseDir, name), 'utf8');
    } catch {
      mismatches.push({ file: name, problem: 'missing' });
      continue;
    }
    if (found !== text) mismatches.push({ file: name, problem: 'differs from its recomputation' });
  }
  return mismatches;
}
