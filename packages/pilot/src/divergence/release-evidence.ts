import { RUN_FILE_NAME, RUN_FOLDER_DIRECTORY, runFolderPaths } from '@chi/run/internal';
import type { ChisEntry } from '@chi/spec';
import {
  type DivergenceAnalysis,
  type DivergenceEstimate,
  type DivergenceWorldValue,
  divergenceWorldValues,
  type ExcludedInstance,
} from './analyze';
import type { DivergenceManifest } from './manifest';

/** What the evidence files of a divergence release are computed from (`recomputeDivergence`). */
export interface DivergenceRecomputation {
  readonly manifest: DivergenceManifest;
  readonly analysis: DivergenceAnalysis;
  /** The CHIS entries of every instance, in call order. */
  readonly entries: readonly ChisEntry[];
  readonly excluded: readonly ExcludedInstance[];
}

/** Per-world values and world sets of every number (`divergence-worlds.csv`). */
export const DIVERGENCE_WORLDS_FILE = 'divergence-worlds.csv';
/** Task accuracy per system, arm and checkpoint (`divergence-accuracy.csv`). */
export const DIVERGENCE_ACCURACY_FILE = 'divergence-accuracy.csv';
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

/** The release README: the evidence label, what each file is and the two ways to verify. */
export function divergenceReadme(analysis: DivergenceAnalysis): string {
  const scripted = analysis.systems.every((system) => system.evidenceClass === 'scripted_baseline');
  return [
    `# Divergence release (${analysis.protocol})`,
    '',
    ...(scripted ? ['> **Scripted baselines — not a measurement of any model.**', ''] : []),
    `Manifest SHA-256: ${analysis.manifestSha256}.`,
    '',
    'Check and recompute every derived file from inside this folder; only Node.js (>= 20.19) is',
    'needed, no network and no other files:',
    '',
    '```sh',
    'sha256sum -c SHA256SUMS          # every file is as published',
    `node code/verify.mjs .           # recomputes every derived file from ${RUN_FILE_NAME.attempts}`,
    '```',
    '',
    '| Path | What |',
    '| --- | --- |',
    `| \`${RUN_FILE_NAME.manifest}\`, \`${RUN_FILE_NAME.manifestSha256}\` | the frozen manifest (systems, world seeds, arms, checkpoints, primary checkpoint, analysis seed) and its hash |`,
    `| \`${RUN_FILE_NAME.plan}\`, \`${RUN_FILE_NAME.attempts}\` | every planned request and the hash-chained attempt log (replies, notebooks applied) |`,
    `| \`${RUN_FOLDER_DIRECTORY.prompts}/\`, \`${RUN_FILE_NAME.requestIndex}\`, \`${RUN_FOLDER_DIRECTORY.payloads}/\` | prompt templates; one line per request; each distinct request exactly as sent (\`${RUN_FOLDER_DIRECTORY.payloads}/<requestSha256>.json.gz\`, gzip of the canonical JSON of its messages) |`,
    '| `code/` | the packed `@chi/*` packages (npm tarballs) that made this release and the self-contained verifier `code/verify.mjs` |',
    `| \`${RUN_FOLDER_DIRECTORY.chis}/<system>.jsonl\` | the CHIS log: one entry per probe of every instance (decision vector, task accuracy, state hash) |`,
    '| `divergence.json` | the analysis: every series, dynamic and task accuracy with its interval and world count |',
    '| `divergence-trajectory.csv`, `divergence-dynamics.csv` | the series and dynamics as tables |',
    `| \`${DIVERGENCE_ACCURACY_FILE}\` | task accuracy per system, arm and checkpoint: the task outcomes beside the dynamics |`,
    `| \`${DIVERGENCE_WORLDS_FILE}\` | every per-world value behind every number; rows with \`in_world_set\` true are the worlds that number used |`,
    '| `divergence.md`, `report.html`, `divergence-trajectory.svg` | the report and its figure |',
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
