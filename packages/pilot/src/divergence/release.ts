import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { writeSha256Sums } from '@chi/report';
import {
  runFolderPaths as divergencePaths,
  RUN_FILE_NAME,
  RUN_FOLDER_DIRECTORY,
} from '@chi/run/internal';
import type { DivergenceAnalysis, DivergenceEstimate, DivergenceSeries } from './analyze';
import { divergenceFigures } from './figures';
import { type DivergenceRecomputation, renderDivergenceEvidence } from './release-evidence';
import { copyDivergenceReleaseInputs } from './release-inputs';
import {
  type DivergenceReportInput,
  divergenceReportHtml,
  divergenceReportMarkdown,
} from './report';

/** The files of a divergence release, each a pure function of the analysis. */
export const DIVERGENCE_RELEASE_FILES = [
  'divergence.json',
  'divergence-trajectory.csv',
  'divergence-dynamics.csv',
  'figures/divergence-trajectory.svg',
  'figures/divergence-dynamics.svg',
  'figures/divergence-accuracy.svg',
  'report.md',
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

/**
 * The release files' contents, by name (pure: the same analysis gives the same bytes): the
 * analysis, its tables, the figures and the report (`report.md`, `report.html`, rendered by the
 * pilot report's renderer).
 */
export function renderDivergenceRelease(analysis: DivergenceReportInput): Map<string, string> {
  return new Map<string, string>([
    ['divergence.json', `${JSON.stringify(analysis, null, 2)}\n`],
    ['divergence-trajectory.csv', trajectoryCsv(analysis)],
    ['divergence-dynamics.csv', dynamicsCsv(analysis)],
    ...divergenceFigures(analysis).map((figure): [string, string] => [figure.svgPath, figure.svg]),
    ['report.md', divergenceReportMarkdown(analysis)],
    ['report.html', divergenceReportHtml(analysis)],
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
