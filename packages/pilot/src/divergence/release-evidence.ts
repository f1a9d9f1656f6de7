import { evidenceBanner } from '@chi/analysis';
import type { DivergenceManifest } from '@chi/experiments/internal';
import {
  type LayoutName,
  type ReleaseLayoutRow,
  RUN_FILE_NAME,
  RUN_FOLDER_DIRECTORY,
  renderLayoutRow,
  runFolderPaths,
} from '@chi/run/internal';
import type { ChisEntry } from '@chi/spec';
import {
  type DivergenceAnalysis,
  type DivergenceEstimate,
  type DivergenceWorldValue,
  divergenceWorldValues,
  type ExcludedInstance,
} from './analyze';
import { divergenceSystemLabel } from './figures';
import { DIVERGENCE_ACCURACY_FILE, DIVERGENCE_WORLDS_FILE } from './release-file-names';

export { DIVERGENCE_ACCURACY_FILE, DIVERGENCE_WORLDS_FILE } from './release-file-names';

/** What the evidence files of a divergence release are computed from (`recomputeDivergence`). */
export interface DivergenceRecomputation {
  readonly manifest: DivergenceManifest;
  readonly analysis: DivergenceAnalysis;
  /** The CHIS entries of every instance, in call order. */
  readonly entries: readonly ChisEntry[];
  readonly excluded: readonly ExcludedInstance[];
}

/** The release's README: what each file is and how to verify it. */
export const DIVERGENCE_README_FILE = 'README.md';

function number(value: number | null): string {
  return value === null ? '' : String(value);
}

function csvField(text: string): string {
  return /[",\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/**
 * `divergence-worlds.csv`: one row per system, statistic and planned world with the world's
 * unrounded value; `in_world_set` is true where the value is defined, so the rows with `true` are
 * the world list of that statistic's published estimate (its mean).
 */
export function worldValuesCsv(values: readonly DivergenceWorldValue[]): string {
  const rows = ['system,statistic,world_seed,value,in_world_set,reason'];
  for (const value of values)
    rows.push(
      [
        value.systemId,
        value.statistic,
        String(value.worldSeed),
        number(value.value),
        String(value.value !== null),
        csvField(value.reason ?? ''),
      ].join(','),
    );
  return `${rows.join('\n')}\n`;
}

function estimateFields(value: DivergenceEstimate): string[] {
  return [
    number(value.estimate),
    number(value.lower),
    number(value.upper),
    String(value.worlds),
    String(value.plannedWorlds),
    csvField(value.reason ?? ''),
  ];
}

/** `divergence-accuracy.csv`: task accuracy per system, arm and checkpoint. */
export function taskAccuracyCsv(analysis: DivergenceAnalysis): string {
  const rows = [
    'system,evidence_class,arm,checkpoint,estimate,lower,upper,worlds,planned_worlds,reason',
  ];
  for (const system of analysis.systems)
    for (const cell of system.taskAccuracy)
      rows.push(
        [
          system.systemId,
          system.evidenceClass,
          cell.arm,
          String(cell.checkpoint),
          ...estimateFields(cell.value),
        ].join(','),
      );
  return `${rows.join('\n')}\n`;
}

/**
 * The CHIS log of the release, as the pilot writes it: `chis/<systemId>.jsonl` per system (the
 * run folder's path, `runFolderPaths`), one `ChisEntrySchema` line per probe of every instance.
 */
export function chisLogFiles(
  manifest: Pick<DivergenceManifest, 'systems'>,
  entries: readonly ChisEntry[],
): Map<string, string> {
  const relative = runFolderPaths('');
  const files = new Map<string, string>();
  for (const system of manifest.systems) {
    const own = entries.filter((entry) => entry.systemId === system.id);
    files.set(relative.chis(system.id), own.map((entry) => `${JSON.stringify(entry)}\n`).join(''));
  }
  return files;
}

const runFiles = (...ids: string[]): LayoutName[] => ids.map((runFile) => ({ runFile }));
const releaseFiles = (...names: string[]): LayoutName[] =>
  names.map((releaseFile) => ({ releaseFile }));

/**
 * The layout table of the divergence release README: the run files' names come from `RUN_FILES`
 * (`@chi/run`, the pilot README's rows where they mean the same), the release files' from here.
 */
export const DIVERGENCE_LAYOUT_ROWS: readonly ReleaseLayoutRow[] = [
  {
    names: runFiles('manifest', 'manifestSha256'),
    what: 'the frozen manifest (systems, world seeds, arms, checkpoints, primary checkpoint, analysis seed) and its hash',
  },
  {
    names: runFiles('plan', 'attempts'),
    what: 'every planned request and the hash-chained attempt log (replies, notebooks applied)',
  },
  {
    names: runFiles('prompt', 'requestIndex', 'payload'),
    what: `prompt templates; one line per request; each distinct request exactly as sent (\`${RUN_FOLDER_DIRECTORY.payloads}/<requestSha256>.json.gz\`, gzip of the canonical JSON of its messages)`,
  },
  {
    names: releaseFiles('code/'),
    what: 'the packed `@chi/*` packages (npm tarballs) that made this release and the self-contained verifier `code/verify.mjs`',
  },
  {
    names: runFiles('chis'),
    what: 'the CHIS log: one entry per probe of every instance (decision vector, task accuracy, state hash)',
  },
  {
    names: releaseFiles('divergence.json'),
    what: 'the analysis: every series, dynamic and task accuracy with its interval, simultaneous band and world count',
  },
  {
    names: releaseFiles('divergence-trajectory.csv', 'divergence-dynamics.csv'),
    what: 'the series and dynamics as tables',
  },
  {
    names: releaseFiles(DIVERGENCE_ACCURACY_FILE),
    what: 'task accuracy per system, arm and checkpoint: the task outcomes beside the dynamics',
  },
  {
    names: releaseFiles(DIVERGENCE_WORLDS_FILE),
    what: 'every per-world value behind every number; rows with `in_world_set` true are the worlds that number used',
  },
  {
    names: releaseFiles('figures/'),
    what: 'SVG figures: the divergence series with simultaneous bands, the dynamics, task accuracy per arm',
  },
  {
    names: releaseFiles('report.md', 'report.html'),
    what: 'the report: summary, figures, series, excluded instances, per-system tables',
  },
  { names: releaseFiles('SHA256SUMS'), what: 'SHA-256 of every other file' },
];

/**
 * The release README: what the release is, its evidence label (scripted, synthetic or an
 * endpoint nobody declared: never called a live model), how to verify it, and its layout table.
 */
export function divergenceReadme(analysis: DivergenceAnalysis): string {
  const banner = evidenceBanner(analysis.systems.map((system) => system.evidenceClass));
  return [
    `# Divergence release (${analysis.protocol})`,
    '',
    ...(banner === null ? [] : [`> **${banner}**`, '']),
    `Protocol: ${analysis.protocol}, the divergence protocol (different histories, same-history controls, erasure, sham and swap arms). Manifest SHA-256: ${analysis.manifestSha256}. Systems: ${analysis.systems.map(divergenceSystemLabel).join('; ')}.`,
    '',
    'Read `report.html` (self-contained) or `report.md`. Check and recompute every derived file',
    'from inside this folder; only Node.js (>= 20.19) is needed, no network and no other files',
    '(`chi verify .` does the same with the `chi` command):',
    '',
    '```sh',
    'sha256sum -c SHA256SUMS          # every file is as published',
    `node code/verify.mjs .           # recomputes every derived file from ${RUN_FILE_NAME.attempts}`,
    '```',
    '',
    '| Path | What |',
    '| --- | --- |',
    ...DIVERGENCE_LAYOUT_ROWS.map(renderLayoutRow),
    '',
    'No API key, authorization header or account balance is included.',
    '',
  ].join('\n');
}

/**
 * The derived files a divergence release carries beside the analysis' own
 * (`renderDivergenceRelease`): per-world values, task accuracy, the CHIS log and the README. Pure:
 * the same recomputation gives the same bytes, so `chi verify` compares them.
 */
export function renderDivergenceEvidence(recomputed: DivergenceRecomputation): Map<string, string> {
  return new Map<string, string>([
    [DIVERGENCE_README_FILE, divergenceReadme(recomputed.analysis)],
    [DIVERGENCE_ACCURACY_FILE, taskAccuracyCsv(recomputed.analysis)],
    [
      DIVERGENCE_WORLDS_FILE,
      worldValuesCsv(
        divergenceWorldValues(recomputed.manifest, recomputed.entries, recomputed.excluded),
      ),
    ],
    ...chisLogFiles(recomputed.manifest, recomputed.entries),
  ]);
}
