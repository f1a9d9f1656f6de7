import { RUN_FILES } from './run-files';

/** A name in a release README's layout table: a run file (by its `RUN_FILES` ID) or a release file. */
export type LayoutName = { readonly runFile: string } | { readonly releaseFile: string };

/** One row of a release README's layout table: the files it names and what they hold. */
export interface ReleaseLayoutRow {
  readonly names: readonly LayoutName[];
  readonly what: string;
}

/**
 * How a run file is named in a layout table: its path when fixed (`plan.json`), else the folder
 * that holds it (`payloads/`), read from {@link RUN_FILES}.
 *
 * @throws Error for an ID the table does not hold (a programming error)
 */
export function layoutName(runFileId: string): string {
  const entry = RUN_FILES.find((candidate) => candidate.id === runFileId);
  if (entry === undefined) throw new Error(`no run file ${runFileId} in RUN_FILES`);
  return entry.path.includes('<') ? entry.path.slice(0, entry.path.indexOf('/') + 1) : entry.path;
}

/** `| \`a\`, \`b\` | what |`: one Markdown row of a layout table. */
export function renderLayoutRow(row: ReleaseLayoutRow): string {
  const names = row.names.map(
    (name) => `\`${'runFile' in name ? layoutName(name.runFile) : name.releaseFile}\``,
  );
  return `| ${names.join(', ')} | ${row.what} |`;
}

const run = (...ids: string[]): LayoutName[] => ids.map((runFile) => ({ runFile }));

/**
 * The run-file rows of the pilot release README's layout table, keyed by row: the names come from
 * {@link RUN_FILES}, the descriptions live here beside them. The report places them among the rows
 * of its own files (`release.json`, `scores/`, ...).
 */
export const RELEASE_LAYOUT_ROWS = {
  manifest: {
    names: run('manifest', 'manifestSha256'),
    what: 'the frozen run manifest (systems, seeds, prompts, caps, analysis seed) and its hash',
  },
  /** Layout 0.1: one file per request. */
  legacyRequests: {
    names: run('prompt', 'legacyRequest'),
    what: 'prompt templates and every request exactly as sent',
  },
  /** Layout 0.1: worlds as plain JSON. */
  legacyWorlds: { names: run('memoryWorld'), what: 'generated worlds with their answer keys' },
  requests: {
    names: run('prompt', 'requestIndex', 'payload'),
    what: 'prompt templates; one line per request (ID, template, `requestSha256`); each distinct request exactly as sent, stored once as `payloads/<requestSha256>.json.gz` (gzip of the canonical JSON of its messages: `zcat payloads/<sha256>.json.gz \\| jq .` shows it, `\\| sha256sum` prints its name)',
  },
  worlds: {
    names: run('memoryWorld'),
    what: 'generated worlds with their answer keys, as gzip JSON (`zcat worlds/memory/w<seed>-n<load>.json.gz \\| jq .`)',
  },
  plan: {
    names: run('plan', 'blocks', 'status'),
    what: 'registered requests and blocks, block status as the run recorded it, run status',
  },
  attempts: {
    names: [...run('attempts'), { releaseFile: 'usage.csv' }],
    what: 'redacted response records with usage and timestamps; one usage row per resolved attempt',
  },
  notebooks: { names: run('memoryNotebook'), what: 'every retained notebook state' },
  logs: {
    names: run('failures', 'smoke', 'ledger'),
    what: 'failure/exclusion log, smoke checks (excluded data), budget ledger',
  },
  chis: { names: run('chis'), what: 'CHIS sequences per system' },
  calibration: {
    names: [{ releaseFile: 'validity/' }, ...run('calibration')],
    what: 'with a calibration only: the frozen calibration and its checks (held-out humans, split-half reliability, subgroups, sensitivity, imitation)',
  },
} as const satisfies Record<string, ReleaseLayoutRow>;

/** The key of a row of {@link RELEASE_LAYOUT_ROWS}. */
export type ReleaseLayoutRowId = keyof typeof RELEASE_LAYOUT_ROWS;

/** The Markdown row of the pilot release README's layout table for these run files. */
export function releaseLayoutRow(id: ReleaseLayoutRowId): string {
  return renderLayoutRow(RELEASE_LAYOUT_ROWS[id]);
}
