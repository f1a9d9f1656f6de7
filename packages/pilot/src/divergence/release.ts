import { evidenceBanner } from '@chi/analysis';
import { DIVERGENCE_PROTOCOL_ID } from '@chi/experiments/internal';
import { type ReleaseKind, writeRelease } from '@chi/report';
import { runFolderPaths as divergencePaths, RUN_FOLDER_DIRECTORY } from '@chi/run/internal';
import type { DivergenceAnalysis, DivergenceEstimate, DivergenceSeries } from './analyze';
import { divergenceFigures } from './figures';
import { type DivergenceRecomputation, renderDivergenceEvidence } from './release-evidence';
import { divergenceReleaseCode, isDivergenceRawPath } from './release-inputs';
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
 * The divergence release kind of `@chi/report`'s writer and verifier (`ReleaseKind`): its raw part
 * is the frozen manifest and its hash, the plan, the hash-chained attempt log (replies, request
 * hashes and the notebook sources the runner applied), the prompts, the request index and the
 * payloads as sent (`isDivergenceRawPath`), copied byte for byte, from which `chi verify`
 * recomputes everything; `code/` is the writer's (`divergenceReleaseCode`). Its derived
 * files {@link renderDivergenceReleaseFiles} of the recomputation `recompute` makes from a folder
 * (`recomputeDivergence`: the run folder when writing, the release when verifying).
 */
export function divergenceReleaseKind(
  recompute: (dir: string) => Promise<DivergenceRecomputation>,
): ReleaseKind {
  return {
    specificationVersion: 'v1',
    protocol: DIVERGENCE_PROTOCOL_ID,
    // byte for byte, as the run wrote them: the release's raw part is the run folder's own files
    rawCopy: 'verbatim',
    isRawPath: isDivergenceRawPath,
    async derive(dir) {
      const recomputed = await recompute(dir);
      return {
        files: renderDivergenceReleaseFiles(recomputed),
        evidenceBanner: evidenceBanner(
          recomputed.analysis.systems.map((system) => system.evidenceClass),
        ),
      };
    },
  };
}

/** Options of {@link writeDivergenceRelease}. */
export interface WriteDivergenceReleaseOptions {
  /**
   * The environment the run read its API keys from (the CLI's): their values, beside those of
   * `process.env`, must appear in no published file. They are only compared, never written.
   */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/** The API-key values no release may hold: those of `process.env` and of `env`. */
function forbiddenKeys(env: Readonly<Record<string, string | undefined>> = {}): string[] {
  const values = [process.env, env].flatMap((from) =>
    DIVERGENCE_KEY_VARIABLES.map((name) => from[name]?.trim()),
  );
  return [...new Set(values.filter((v): v is string => v !== undefined && v.length >= 8))];
}

/** The environment variables of the API keys a run reads (`@chi/report`'s default too). */
const DIVERGENCE_KEY_VARIABLES = ['OPENROUTER_API_KEY', 'OPENAI_API_KEY'] as const;

/**
 * Writes the release of a divergence run into `<run>/release/` with `@chi/report`'s
 * `writeRelease` and the divergence release kind: the raw inputs (manifest, plan, attempt log,
 * prompts, request index and payloads), the code that made it (`code/`), every derived file of
 * `recomputed` and `SHA256SUMS` over all of them. Built in a staging folder beside it and moved
 * into place whole (an earlier release is replaced only when complete); refuses with
 * `SecretLeakError`, writing nothing, when a file would publish an API key. Returns the folder.
 */
export async function writeDivergenceRelease(
  runDir: string,
  recomputed: DivergenceRecomputation,
  options: WriteDivergenceReleaseOptions = {},
): Promise<string> {
  const summary = await writeRelease({
    runDir,
    outDir: divergencePaths(runDir).releaseDir,
    overwrite: true,
    kind: divergenceReleaseKind(async () => recomputed),
    code: divergenceReleaseCode(),
    forbiddenStrings: forbiddenKeys(options.env),
  });
  return summary.outDir;
}
