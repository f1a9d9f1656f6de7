import { join } from 'node:path';

/** How a run file is encoded. */
export type RunFileFormat = 'json' | 'jsonl' | 'text';

/**
 * Who a run file is for:
 * - `raw`: a record of what happened, copied into the release; `chi verify` recomputes from it;
 * - `derived`: rebuilt from the raw files on every session, and copied into the release too;
 * - `private`: stays in the run folder (never published);
 * - `release`: the release folder itself (written by `@chi/report`).
 */
export type RunFileRole = 'raw' | 'derived' | 'private' | 'release';

/** One entry of the run-folder layout: where a file lives, what it holds, when it is written. */
export interface RunFile {
  /** Stable identifier of the entry. */
  readonly id: string;
  /** The path (or path pattern, `<name>` for a variable part) relative to the run folder. */
  readonly path: string;
  /** Matches every relative path (POSIX separators) this entry describes. */
  readonly matcher: RegExp;
  readonly format: RunFileFormat;
  /** Stored gzip-compressed (standard gzip: `zcat` reads it). */
  readonly gzip: boolean;
  readonly role: RunFileRole;
  /** The schema (a `@chi/spec` export) or the text form, as documented in RUN-FOLDER.md. */
  readonly schema: string;
  /** When it is written, as documented in RUN-FOLDER.md. */
  readonly written: string;
}

const SLUG = '[A-Za-z0-9._-]+';
const HEX64 = '[0-9a-f]{64}';

function file(
  id: string,
  path: string,
  pattern: string,
  format: RunFileFormat,
  role: RunFileRole,
  schema: string,
  written: string,
  gzip = false,
): RunFile {
  return { id, path, matcher: new RegExp(`^${pattern}$`), format, gzip, role, schema, written };
}

/**
 * The run-folder layout (version 0.2, content-addressed payloads): every file a run folder can
 * hold, in the order of RUN-FOLDER.md's table, which is generated from it
 * (`renderRunFileTable`; a test keeps the two equal). `runFolderPaths` is the only
 * place paths are built.
 */
export const RUN_FILES: readonly RunFile[] = [
  file(
    'manifest',
    'manifest.json',
    'manifest\\.json',
    'json',
    'raw',
    '`RunManifestSchema`',
    'once, at creation, before any request; never rewritten (written last of the creation files: its presence marks a complete creation)',
  ),
  file(
    'manifestSha256',
    'manifest.sha256',
    'manifest\\.sha256',
    'text',
    'raw',
    'text `<hex>  manifest.json\\n` (sha256sum format)',
    'with the manifest',
  ),
  file(
    'prompt',
    'prompts/<name>@<version>.txt',
    `prompts/${SLUG}@${SLUG}\\.txt`,
    'text',
    'raw',
    'the exact template bytes; `manifest.prompts[]` holds each SHA-256',
    'at creation',
  ),
  file(
    'memoryWorld',
    'worlds/memory/w<seed>-n<load>.json.gz',
    'worlds/memory/w(\\d+)-n(\\d+)\\.json(?:\\.gz)?',
    'json',
    'raw',
    '`MemoryWorldSchema` (records, blind probes, answer key), gzip of its RFC 8785 canonical JSON (`.json`, pretty, in layout 0.1)',
    'at creation',
    true,
  ),
  file(
    'historyWorld',
    'worlds/history/w<seed>.json.gz',
    'worlds/history/w(\\d+)\\.json(?:\\.gz)?',
    'json',
    'raw',
    '`HistoryWorldSchema`, gzip of its RFC 8785 canonical JSON (`.json`, pretty, in layout 0.1)',
    'at creation',
    true,
  ),
  file(
    'behaviorWorld',
    'worlds/behavior/w<seed>.json.gz',
    'worlds/behavior/w(\\d+)\\.json(?:\\.gz)?',
    'json',
    'raw',
    '`BehavioralItemSetSchema`, gzip of its RFC 8785 canonical JSON (`.json`, pretty, in layout 0.1)',
    'at creation',
    true,
  ),
  file(
    'plan',
    'plan.json',
    'plan\\.json',
    'json',
    'raw',
    '`RunPlanSchema`: every registered request (ID, system, block, task, step, dependencies, nonce) and every block; `manifest.planSha256` = SHA-256 of its RFC 8785 form',
    'at creation',
  ),
  file(
    'catalog',
    'catalog.json',
    'catalog\\.json',
    'json',
    'raw',
    '`ModelCatalogSchema`: prices and endpoints fetched before freezing (live OpenRouter runs only)',
    'at creation',
  ),
  file(
    'calibration',
    'calibration.json',
    'calibration\\.json',
    'json',
    'raw',
    '`HumanCalibrationSchema` with `build` and `sample` (written by `chi calibrate`); its ID and hash are frozen in `manifest.chiComparison` (only with `--calibration`)',
    'at creation, before the manifest',
  ),
  file(
    'lock',
    'run.lock',
    'run\\.lock',
    'json',
    'private',
    '`RunLockOwner` (`@chi/run`): PID, host, process start time, command and time of the one process writing the folder',
    'created atomically (`O_EXCL`) by every command that writes the folder (`chi pilot`, `--resume`, `chi score`), removed when it ends; a crash leaves it, and the next writer takes it over only when its holder is provably gone',
  ),
  file(
    'smoke',
    'smoke.jsonl',
    'smoke\\.jsonl',
    'jsonl',
    'raw',
    '`SmokeResultSchema` lines, `evidence: "excluded"` (never scored)',
    'before the first scored request of a live run, and by `chi smoke`',
  ),
  file(
    'smokeLedger',
    'smoke-ledger.jsonl',
    'smoke-ledger\\.jsonl',
    'jsonl',
    'private',
    "`LedgerEntrySchema` lines: the smoke checks' own file ledger (ceiling `--smoke-ceiling-usd`, kept across sessions); a check it shows as reserved is never sent again, even when its result was lost",
    'live runs: by the smoke checks (not published)',
  ),
  file(
    'payload',
    'payloads/<sha256>.json.gz',
    `payloads/${HEX64}\\.json\\.gz`,
    'json',
    'raw',
    "gzip of the RFC 8785 canonical JSON of a request's `messages`; the file name is the SHA-256 of the uncompressed bytes (`requestSha256`), so identical prompts are stored once",
    'just before the first `before_send` that sends it',
    true,
  ),
  file(
    'requestIndex',
    'requests.jsonl',
    'requests\\.jsonl',
    'jsonl',
    'raw',
    '`RequestIndexEntrySchema` lines: a rendered request without its messages (ID, system, block, task, template, `maxOutputTokens`, `requestSha256` = its payload, `inputBytes`)',
    'just before its `before_send` (again on a resend)',
  ),
  file(
    'legacyRequest',
    'requests/<requestId>.json',
    `requests/${SLUG}\\.json`,
    'json',
    'raw',
    '`RenderedRequestSchema` with the messages inline: layout 0.1 only (read, and written when resuming a 0.1 folder)',
    'layout 0.1: just before its `before_send`',
  ),
  file(
    'attempts',
    'attempts.jsonl',
    'attempts\\.jsonl',
    'jsonl',
    'raw',
    '`AttemptRecordSchema` lines, phases `before_send`, `after_response`, `abandoned`',
    'before sending, after the result, on resume',
  ),
  file(
    'attemptsHead',
    'attempts.head.json',
    'attempts\\.head\\.json',
    'json',
    'private',
    "`{ records, headSha256 }`: the attempt log's record count and last record's hash (its anchor; `@chi/run` `attempt-anchor.ts`)",
    'at the start of every session, then after every group of appends to `attempts.jsonl` made durable by one `fdatasync`',
  ),
  file(
    'ledger',
    'ledger.jsonl',
    'ledger\\.jsonl',
    'jsonl',
    'raw',
    '`LedgerEntrySchema` lines (the `@chi/openrouter` file ledger: open, reserve, settle, retain, stop)',
    'live runs: by the ledger on every operation',
  ),
  file(
    'memoryNotebook',
    'notebooks/<systemId>/memory/w<seed>-n<load>.json',
    `notebooks/${SLUG}/memory/w\\d+-n\\d+\\.json`,
    'json',
    'derived',
    '`NotebookSnapshotSchema`',
    'after the encode request resolves',
  ),
  file(
    'historyNotebook',
    'notebooks/<systemId>/history/w<seed>-<H>-c<k>.json',
    `notebooks/${SLUG}/history/w\\d+-[A-Za-z0-9]+-c\\d+\\.json`,
    'json',
    'derived',
    '`NotebookSnapshotSchema`; `c0` is the empty starting notebook (`requestId: null`)',
    '`c0` at creation; `c1`..`c4` after each update resolves',
  ),
  file(
    'moduleNotebook',
    'notebooks/<systemId>/<experiment>/<key>.json',
    `notebooks/${SLUG}/(?!memory/|history/)[a-z][a-z0-9-]*/[A-Za-z0-9._-]+\\.json`,
    'json',
    'derived',
    '`NotebookSnapshotSchema`; experiments other than memory and history (goal-persistence, feedback-valence, `x-...`), `<key>` the notebook key with its pipes written as underscores',
    'after each note-writing request resolves',
  ),
  file(
    'failures',
    'failures.jsonl',
    'failures\\.jsonl',
    'jsonl',
    'raw',
    '`FailureLogEntrySchema` lines: category `model`, `infrastructure`, `abandoned`, `dependency`',
    'as they happen',
  ),
  file(
    'blocks',
    'blocks.json',
    'blocks\\.json',
    'json',
    'derived',
    '`BlockStatusSchema[]` (plan order): `complete` / `incomplete` (+ one reason line per cause) / `not_started`',
    'at the end of every execution session',
  ),
  file(
    'status',
    'status.json',
    'status\\.json',
    'json',
    'derived',
    '`RunStatusSchema`: state (`running`, `completed`, `stopped`, `failed`), counts, spend, stop reason, resumes, cumulative elapsed, exit code',
    'at creation, end of every session, exit code after it',
  ),
  file(
    'chis',
    'chis/<systemId>.jsonl',
    `chis/${SLUG}\\.jsonl`,
    'jsonl',
    'derived',
    '`ChisEntrySchema` lines, one per checkpoint of every fully resolved history trajectory (a divergence run: one per probe of every instance)',
    'after execution (rewritten)',
  ),
  file(
    'release',
    'release/',
    'release/.*',
    'text',
    'release',
    'the release written by `@chi/report` (`writeRelease`): raw and derived files above (JSON as canonical JSON, payloads byte for byte) plus scores, traces, chart data, figures, report, `SHA256SUMS`',
    'after execution unless `--no-release`',
  ),
];

/** The IDs of the run files whose name is fixed (no variable part). */
export type FixedRunFileId =
  | 'manifest'
  | 'manifestSha256'
  | 'plan'
  | 'catalog'
  | 'calibration'
  | 'lock'
  | 'smoke'
  | 'smokeLedger'
  | 'requestIndex'
  | 'attempts'
  | 'attemptsHead'
  | 'ledger'
  | 'failures'
  | 'blocks'
  | 'status';

const FIXED_RUN_FILE_IDS: readonly FixedRunFileId[] = [
  'manifest',
  'manifestSha256',
  'plan',
  'catalog',
  'calibration',
  'lock',
  'smoke',
  'smokeLedger',
  'requestIndex',
  'attempts',
  'attemptsHead',
  'ledger',
  'failures',
  'blocks',
  'status',
];

/** The folders of a run folder that hold run files with a variable name. */
export type RunFolderDirectoryId =
  | 'prompts'
  | 'worlds'
  | 'payloads'
  | 'legacyRequests'
  | 'notebooks'
  | 'chis'
  | 'release';

/**
 * The name of every run file with a fixed name, read from {@link RUN_FILES}: the one way code
 * outside `@chi/run` names one in a message or a relative path (`RUN_FILE_NAME.status` is
 * `status.json`). A test fails on any such name spelled as a literal in another package's source.
 */
export const RUN_FILE_NAME: Readonly<Record<FixedRunFileId, string>> = Object.freeze(
  Object.fromEntries(
    FIXED_RUN_FILE_IDS.map((id) => [id, RUN_FILES.find((entry) => entry.id === id)?.path ?? '']),
  ) as Record<FixedRunFileId, string>,
);

/**
 * The name of every folder of a run folder whose files have variable names
 * (`RUN_FOLDER_DIRECTORY.payloads` is `payloads`), read from {@link RUN_FILES}.
 */
export const RUN_FOLDER_DIRECTORY: Readonly<Record<RunFolderDirectoryId, string>> = Object.freeze({
  prompts: directoryOf('prompt'),
  worlds: directoryOf('memoryWorld'),
  payloads: directoryOf('payload'),
  legacyRequests: directoryOf('legacyRequest'),
  notebooks: directoryOf('memoryNotebook'),
  chis: directoryOf('chis'),
  release: directoryOf('release'),
});

function directoryOf(id: string): string {
  const path = RUN_FILES.find((entry) => entry.id === id)?.path ?? '';
  return path.slice(0, path.indexOf('/'));
}

/**
 * The layout entry with this ID.
 *
 * @throws Error for an ID the table does not hold (a programming error)
 */
export function runFile(id: string): RunFile {
  const entry = RUN_FILES.find((candidate) => candidate.id === id);
  if (entry === undefined) throw new Error(`no run file ${id} in RUN_FILES`);
  return entry;
}

/** The layout entry a relative path (POSIX separators) belongs to, or undefined. */
export function runFileOf(path: string): RunFile | undefined {
  return RUN_FILES.find((entry) => entry.matcher.test(path));
}

/**
 * Whether a relative path is copied into a release (a raw or derived run file): the release's
 * raw part, from which `chi verify` recomputes everything else.
 */
export function isPublishedRunFile(path: string): boolean {
  const entry = runFileOf(path);
  return entry !== undefined && (entry.role === 'raw' || entry.role === 'derived');
}

/** The layout table of RUN-FOLDER.md, generated from {@link RUN_FILES}. */
export function renderRunFileTable(): string {
  const rows = RUN_FILES.map(
    (entry) => `| \`${entry.path}\` | ${entry.schema} | ${entry.written} |`,
  );
  return ['| Path | Schema | Written |', '| --- | --- | --- |', ...rows].join('\n');
}

/** Every path of a run folder (see RUN-FOLDER.md), built from the layout table. */
export interface RunPaths {
  readonly root: string;
  readonly manifest: string;
  readonly manifestSha256: string;
  readonly promptsDir: string;
  readonly plan: string;
  readonly catalog: string;
  readonly calibration: string;
  /** `run.lock`: the exclusive write lock of the folder. */
  readonly lock: string;
  readonly attempts: string;
  /** `attempts.head.json`: the attempt log's anchor, rewritten after every group of durable appends. */
  readonly attemptsHead: string;
  readonly ledger: string;
  readonly failures: string;
  readonly smoke: string;
  /** The smoke checks' own file ledger (their ceiling across sessions; never re-pays a check). */
  readonly smokeLedger: string;
  readonly status: string;
  readonly blocks: string;
  readonly chisDir: string;
  readonly releaseDir: string;
  /** `requests.jsonl`: the request index of layout 0.2. */
  readonly requestIndex: string;
  /** `payloads/`: the content-addressed request payloads of layout 0.2. */
  readonly payloadsDir: string;
  /** `requests/`: the per-request files of layout 0.1. */
  readonly legacyRequestsDir: string;
  prompt(name: string, version: string): string;
  /** `worlds/memory/w<seed>-n<load>.json.gz` (without `.gz` in layout 0.1). */
  memoryWorld(seed: number, load: number): string;
  /** `worlds/history/w<seed>.json.gz` (without `.gz` in layout 0.1). */
  historyWorld(seed: number): string;
  /** `worlds/behavior/w<seed>.json.gz` (without `.gz` in layout 0.1). */
  behaviorWorld(seed: number): string;
  /** `payloads/<sha256>.json.gz`. */
  payload(sha256: string): string;
  /** `requests/<requestId>.json` (layout 0.1). */
  legacyRequest(requestId: string): string;
  memoryNotebook(systemId: string, seed: number, load: number): string;
  historyNotebook(systemId: string, seed: number, history: string, checkpoint: number): string;
  /** `notebooks/<systemId>/<experiment>/<key>.json`: a notebook of another experiment. */
  moduleNotebook(systemId: string, experiment: string, key: string): string;
  chis(systemId: string): string;
}

/** The relative (POSIX) path of a payload: `payloads/<sha256>.json.gz`. */
export function payloadPath(sha256: string): string {
  return `payloads/${sha256}.json.gz`;
}

/** The relative (POSIX) path of a layout-0.1 request file: `requests/<requestId>.json`. */
export function legacyRequestPath(requestId: string): string {
  return `requests/${requestId}.json`;
}

/** The paths of the run folder rooted at `root`: the only place run-folder paths are built. */
export function runFolderPaths(root: string): RunPaths {
  const at = (relative: string) => join(root, ...relative.split('/'));
  return {
    root,
    manifest: at('manifest.json'),
    manifestSha256: at('manifest.sha256'),
    promptsDir: at('prompts'),
    plan: at('plan.json'),
    catalog: at('catalog.json'),
    calibration: at('calibration.json'),
    lock: at('run.lock'),
    attempts: at('attempts.jsonl'),
    attemptsHead: at('attempts.head.json'),
    ledger: at('ledger.jsonl'),
    failures: at('failures.jsonl'),
    smoke: at('smoke.jsonl'),
    smokeLedger: at('smoke-ledger.jsonl'),
    status: at('status.json'),
    blocks: at('blocks.json'),
    chisDir: at('chis'),
    releaseDir: at('release'),
    requestIndex: at('requests.jsonl'),
    payloadsDir: at('payloads'),
    legacyRequestsDir: at('requests'),
    prompt: (name, version) => at(`prompts/${name}@${version}.txt`),
    memoryWorld: (seed, load) => at(`worlds/memory/w${seed}-n${load}.json.gz`),
    historyWorld: (seed) => at(`worlds/history/w${seed}.json.gz`),
    behaviorWorld: (seed) => at(`worlds/behavior/w${seed}.json.gz`),
    payload: (sha256) => at(payloadPath(sha256)),
    legacyRequest: (requestId) => at(legacyRequestPath(requestId)),
    memoryNotebook: (systemId, seed, load) =>
      at(`notebooks/${systemId}/memory/w${seed}-n${load}.json`),
    historyNotebook: (systemId, seed, history, checkpoint) =>
      at(`notebooks/${systemId}/history/w${seed}-${history}-c${checkpoint}.json`),
    moduleNotebook: (systemId, experiment, key) =>
      at(`notebooks/${systemId}/${experiment}/${key.replaceAll('|', '_')}.json`),
    chis: (systemId) => at(`chis/${systemId}.jsonl`),
  };
}
