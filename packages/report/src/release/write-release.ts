import { randomBytes } from 'node:crypto';
import { mkdir, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { runEvidenceBanner } from '@chi/analysis';
import { compareUtf8 } from '@chi/analysis/internal';
import type { AnyExperimentScorer } from '@chi/experiment';
import { ChiError, InvalidArgumentError } from '@chi/spec';
import { sha256Hex } from '../canonical-json';
import { failpoint } from '../failpoint';
import { type RunRecords, readRunFolder } from '../run-folder/run-folder';
import { DerivedFilesOnDisk, type WrittenDerivedFile } from './derived-output';
import type { RawFileWritten } from './raw-release-files';
import type { ReleaseCode } from './release-code';
import {
  DEFAULT_RELEASE_PARAMETERS,
  isRawPath,
  produceDerivedRelease,
  type ReleaseParameters,
  startBlockScoring,
} from './release-files';
import type { ReleaseKind } from './release-kind';
import { type ReleaseTask, startReleaseTask } from './release-workers';
import type { SecretFinding } from './secrets';
import {
  formatSha256Sums,
  listTreeFiles,
  SHA256SUMS_FILE,
  type Sha256SumsEntry,
} from './sha256-sums';

/** A release would publish a secret: nothing was written. */
export class SecretLeakError extends ChiError {
  readonly findings: readonly SecretFinding[];

  constructor(findings: readonly SecretFinding[]) {
    super(
      `Refusing to write the release: ${findings.length} secret-looking item(s) found:\n${findings
        .slice(0, 20)
        .map((f) => `  - ${f.path}: ${f.what}`)
        .join('\n')}`,
    );
    this.name = 'SecretLeakError';
    this.findings = findings;
  }
}

/** Options of {@link writeRelease}. */
export interface WriteReleaseOptions {
  /** The run folder (see packages/pilot/RUN-FOLDER.md). */
  readonly runDir: string;
  /** Where to write the release; created if absent. */
  readonly outDir: string;
  /** Replace an existing release in `outDir` (only a folder holding a SHA256SUMS is replaced). */
  readonly overwrite?: boolean;
  /** Scoring and analysis parameters; protocol defaults otherwise. */
  readonly parameters?: Partial<ReleaseParameters>;
  /**
   * Strings that must appear in no published file (e.g. the API key). Defaults to the values of
   * `OPENROUTER_API_KEY` and `OPENAI_API_KEY` in the environment, when set; they are only compared.
   */
  readonly forbiddenStrings?: readonly string[];
  /** Told when each step starts, so a caller can show progress (the analysis can take minutes). */
  readonly onStep?: (step: ReleaseStep) => void;
  /**
   * The code that made the release (`packReleaseCode`): packed `@chi/*` packages and the bundled
   * verifier, written under `code/` and listed with their hashes in `release.json`. Without it
   * the release carries no code and its README names `chi verify` instead.
   */
  readonly code?: ReleaseCode;
  /**
   * Scorers of the run's module experiments (default: `BUILT_IN_SCORERS`). An added experiment
   * (`x-...`) passes its own beside them; `verifyRelease` then needs the same list.
   */
  readonly scorers?: readonly AnyExperimentScorer[];
  /**
   * The release of a protocol other than the default pilot (e.g. the divergence protocol): its
   * raw files and its derived files come from the kind (`parameters` and `scorers` are then not
   * used); everything else is this writer's. Default: the pilot's release.
   */
  readonly kind?: ReleaseKind;
}

/** A step of {@link writeRelease}, in order. */
export type ReleaseStep =
  | { readonly step: 'read'; readonly runDir: string }
  | { readonly step: 'analyze'; readonly resamples: number }
  | { readonly step: 'write'; readonly files: number }
  | { readonly step: 'checksums' };

/** What {@link writeRelease} wrote. */
export interface ReleaseSummary {
  readonly outDir: string;
  /** Every file written, including SHA256SUMS, sorted. */
  readonly files: readonly string[];
  readonly runId: string;
  /** The scripted-baseline banner, or null for an all-live run. */
  readonly evidenceBanner: string | null;
}

/** The raw run files a release copies (relative paths, in listing order). */
async function rawPaths(runDir: string): Promise<string[]> {
  const { files } = await listTreeFiles(runDir);
  return files.filter((path) => isRawPath(path) && !path.endsWith('.tmp'));
}

/**
 * A derived file, already written into the staging folder as it was produced (hashed and scanned
 * for secrets then): nothing is held or written again.
 */
interface DerivedFileWritten {
  readonly written: WrittenDerivedFile;
}

/**
 * A raw run file, already scanned and written into the staging folder (on a worker thread beside
 * the scoring, `writeRawReleaseFiles`): it only gives its hash and findings in its turn.
 */
interface RawFileDone {
  readonly raw: RawFileWritten;
}

/** What one release file holds: a derived file or a raw file already written, or bytes (packed code). */
type ReleaseContent = DerivedFileWritten | RawFileDone | Uint8Array;

/** Sibling folders a release is built in, and an old release moved aside while it is replaced. */
function stagingNames(outDir: string): { partialPrefix: string; replacedPrefix: string } {
  const base = basename(outDir);
  return { partialPrefix: `.${base}.partial-`, replacedPrefix: `.${base}.replaced-` };
}

async function listOrNull(dir: string): Promise<string[] | null> {
  try {
    return await readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/**
 * Checks that `outDir` may be replaced: absent or empty; or, with `overwrite`, a release (it holds
 * SHA256SUMS) or what a writer killed mid-way left (only files a release writes, no SHA256SUMS).
 * A folder holding anything else is never deleted.
 */
async function checkReplaceable(
  outDir: string,
  overwrite: boolean,
  releasePaths: ReadonlySet<string>,
): Promise<void> {
  const entries = await listOrNull(outDir);
  if (entries === null || entries.length === 0) return;
  if (!overwrite)
    throw new InvalidArgumentError(
      'outDir',
      `expected an empty or absent folder, found ${entries.length} entries in ${outDir} (pass overwrite: true to replace an earlier release)`,
    );
  const isRelease = await stat(join(outDir, SHA256SUMS_FILE)).then(
    (s) => s.isFile(),
    () => false,
  );
  if (isRelease) return;
  const { files, irregular } = await listTreeFiles(outDir);
  const foreign = [...irregular, ...files.filter((path) => !releasePaths.has(path))];
  if (foreign.length > 0)
    throw new InvalidArgumentError(
      'outDir',
      `refusing to replace ${outDir}: it holds no ${SHA256SUMS_FILE} and files a release does not write (${foreign.slice(0, 3).join(', ')}), so it is not a release`,
    );
}

/** Removes what an earlier writer killed mid-way left beside `outDir` (by name: only ours). */
async function removeStaleStaging(outDir: string): Promise<void> {
  const { partialPrefix, replacedPrefix } = stagingNames(outDir);
  for (const name of (await listOrNull(dirname(outDir))) ?? []) {
    if (name.startsWith(partialPrefix) || name.startsWith(replacedPrefix))
      await rm(join(dirname(outDir), name), { recursive: true, force: true });
  }
}

/** A release file's content, produced when it is written (raw files are read then). */
type ReleaseFileSource = () => Promise<ReleaseContent>;

/**
 * The secrets one release file would publish, as found when it was written. Packed code is not
 * scanned (its sources name header fields and key formats on purpose, to redact them).
 */
async function scanContent(content: ReleaseContent): Promise<readonly SecretFinding[]> {
  if (content instanceof Uint8Array) return [];
  if ('raw' in content) return content.raw.findings;
  return content.written.findings;
}

/** Writes one release file's content (if not written yet) and returns the SHA-256 of its bytes. */
async function writeContent(target: string, content: ReleaseContent): Promise<string> {
  if (content instanceof Uint8Array) {
    await writeFile(target, content);
    return sha256Hex(content);
  }
  if ('written' in content) return content.written.sha256;
  if (content.raw.sha256 === null)
    throw new Error(`release file ${content.raw.path} was not written (a secret was found)`);
  return content.raw.sha256;
}

/**
 * Produces, scans and writes the release files one at a time into `staging`, in path order; the
 * next file is read while the current one is written. The derived files are there already (hashed
 * and scanned as they were written): they only give their hash and findings in their turn, so
 * findings come in path order as before. Returns the SHA-256 of every file (hashed from the bytes
 * written, so SHA256SUMS needs no second read), or the secret findings.
 */
async function writeFiles(
  staging: string,
  files: ReadonlyMap<string, ReleaseFileSource>,
): Promise<{ entries: Sha256SumsEntry[]; findings: SecretFinding[] }> {
  const entries: Sha256SumsEntry[] = [];
  const findings: SecretFinding[] = [];
  const folders = new Set<string>();
  const paths = [...files.keys()].sort(compareUtf8);
  const produce = (index: number) => {
    const path = paths[index];
    if (path === undefined) return null;
    const content = (files.get(path) as ReleaseFileSource)();
    // read ahead; a failure surfaces when this file's turn comes, not as an unhandled rejection
    content.catch(() => {});
    return content;
  };
  let next = produce(0);
  for (let index = 0; index < paths.length; index++) {
    const path = paths[index] as string;
    const content = await (next as Promise<ReleaseContent>);
    next = produce(index + 1);
    const found = await scanContent(content);
    if (found.length > 0 || findings.length > 0) {
      findings.push(...found);
      continue;
    }
    const folder = dirname(join(staging, path));
    if (!folders.has(folder)) {
      await mkdir(folder, { recursive: true });
      folders.add(folder);
    }
    entries.push({ path, sha256: await writeContent(join(staging, path), content) });
    await failpoint('release:file');
  }
  return { entries, findings };
}

/** A staging folder beside `outDir` (see {@link stagingNames}) and its random suffix. */
interface Staging {
  readonly path: string;
  readonly suffix: string;
}

/**
 * Makes a fresh staging folder beside `outDir`, after removing what an earlier writer killed
 * mid-way left there.
 */
async function createStaging(outDir: string): Promise<Staging> {
  await mkdir(dirname(outDir), { recursive: true });
  await removeStaleStaging(outDir);
  const suffix = randomBytes(4).toString('hex');
  const path = join(dirname(outDir), `${stagingNames(outDir).partialPrefix}${suffix}`);
  await mkdir(path, { recursive: true });
  return { path, suffix };
}

/**
 * Completes the release in `staging`: each file not written yet is produced, scanned for secrets
 * and written one at a time, then SHA256SUMS. When any file would publish a secret,
 * {@link SecretLeakError} is thrown (the caller removes the staging folder).
 */
async function completeStaging(
  staging: Staging,
  files: ReadonlyMap<string, ReleaseFileSource>,
  beforeChecksums: () => void,
): Promise<void> {
  const { entries, findings } = await writeFiles(staging.path, files);
  if (findings.length > 0) throw new SecretLeakError(findings);
  beforeChecksums();
  await writeFile(join(staging.path, SHA256SUMS_FILE), formatSha256Sums(entries));
}

/**
 * Renames the complete staging folder into place: `outDir` holds either the previous complete
 * release or the new complete one, never a mix. A writer killed before the rename leaves only
 * staging folders, which the next writer removes.
 */
async function moveIntoPlace(staging: Staging, outDir: string): Promise<void> {
  await failpoint('release:before-rename');
  if ((await listOrNull(outDir)) === null) {
    await rename(staging.path, outDir);
    return;
  }
  const replaced = join(dirname(outDir), `${stagingNames(outDir).replacedPrefix}${staging.suffix}`);
  await rename(outDir, replaced);
  await failpoint('release:between-renames');
  await rename(staging.path, outDir);
  await rm(replaced, { recursive: true, force: true });
}

function defaultForbidden(): string[] {
  return [process.env.OPENROUTER_API_KEY, process.env.OPENAI_API_KEY]
    .filter((v): v is string => v !== undefined && v.trim().length >= 8)
    .map((v) => v.trim());
}

/**
 * Writes the release of a run: the raw run files (manifest, prompts, worlds with answer keys,
 * rendered requests, redacted attempt records, notebooks, failure and smoke logs, ledger, CHIS
 * logs) as canonical JSON, then everything derived from them (parameters, usage.csv, scores,
 * traces, chart data as JSON and CSV, SVG figures, case examples, report.md, report.html,
 * README.md), then `SHA256SUMS`. Every time comes from the run, so writing twice gives identical
 * bytes. Refuses (SecretLeakError, nothing written) when any file would hold a secret.
 *
 * @example
 * ```ts
 * const summary = await writeRelease({ runDir: 'chi-runs/20260901T080000Z-1a2b3c4d', outDir: 'release' });
 * summary.files.length; // every file, SHA256SUMS included
 * ```
 */
export async function writeRelease(options: WriteReleaseOptions): Promise<ReleaseSummary> {
  const runDir = resolve(options.runDir);
  const outDir = resolve(options.outDir);
  const forbidden = options.forbiddenStrings ?? defaultForbidden();
  const sources = options.kind === undefined ? releaseSources : kindReleaseSources;
  const { files, runId, evidenceBanner, staging, rawTask } = await sources(
    runDir,
    options,
    forbidden,
    () => createStaging(outDir),
  );
  try {
    options.onStep?.({ step: 'write', files: files.size });
    await checkReplaceable(outDir, options.overwrite ?? false, new Set(files.keys()));
    await completeStaging(staging, files, () => options.onStep?.({ step: 'checksums' }));
  } catch (error) {
    // nothing reaches outDir: the files written so far go with the staging folder
    await rawTask.stop();
    await rm(staging.path, { recursive: true, force: true });
    throw error;
  }
  await moveIntoPlace(staging, outDir);
  return {
    outDir,
    files: [...files.keys(), SHA256SUMS_FILE].sort(compareUtf8),
    runId,
    evidenceBanner,
  };
}

/**
 * The derived files written into `staging` as they are produced (each hashed and scanned for
 * secrets then), closing every file they left open when producing them fails.
 */
async function writeDerivedFiles(
  runDir: string,
  records: RunRecords,
  staging: string,
  forbidden: readonly string[],
  parameters: ReleaseParameters,
  options: WriteReleaseOptions,
): Promise<{ written: Map<string, WrittenDerivedFile>; runId: string; banner: string | null }> {
  const derived = new DerivedFilesOnDisk(staging, forbidden);
  const blocks = startBlockScoring(
    { dir: runDir, release: false },
    options.scorers,
    parameters.alphas,
  );
  try {
    const { chartData } = await produceDerivedRelease(
      records,
      derived,
      parameters,
      options.code ?? new Map<string, Uint8Array>(),
      options.scorers,
      blocks?.chunks,
    );
    return {
      written: derived.finish(),
      runId: chartData.run.runId,
      banner: runEvidenceBanner(chartData.run),
    };
  } catch (error) {
    derived.abandon();
    throw error;
  } finally {
    await blocks?.stop();
  }
}

/**
 * Every file of the release as a source to produce it from, with the run's ID and evidence banner.
 * The raw files are copied into the staging folder (`createStaging`, called once the run is read;
 * removed again when producing the derived files fails) by a release task, on a worker thread
 * beside the scoring when the command has more than one thread (`release-workers.ts`), before it
 * otherwise; the derived files are written there as they are produced, so none of them is held.
 * The run records, the scores and the chart data are dropped when this returns.
 */
async function releaseSources(
  runDir: string,
  options: WriteReleaseOptions,
  forbidden: readonly string[],
  createStaging: () => Promise<Staging>,
): Promise<ReleaseSources> {
  const parameters: ReleaseParameters = { ...DEFAULT_RELEASE_PARAMETERS, ...options.parameters };
  options.onStep?.({ step: 'read', runDir });
  const records = await readRunFolder(runDir);
  const raw = (await rawPaths(runDir)).sort(compareUtf8);
  options.onStep?.({ step: 'analyze', resamples: records.manifest.analysis.resamples });
  const { staging, rawTask, derived } = await stageRelease(
    createStaging,
    { runDir, paths: raw, forbidden, verbatim: false },
    (stagingPath) =>
      writeDerivedFiles(runDir, records, stagingPath, forbidden, parameters, options),
  );
  const files = releaseFileSources(raw, rawTask, derived.written, options.code);
  return { files, runId: derived.runId, evidenceBanner: derived.banner, staging, rawTask };
}

/** The raw files a release copies into its staging folder (on the release task). */
interface RawFilesToStage {
  readonly runDir: string;
  readonly paths: readonly string[];
  readonly forbidden: readonly string[];
  /** Byte for byte (a protocol kind's `rawCopy: 'verbatim'`), else as the pilot's are copied. */
  readonly verbatim: boolean;
}

/**
 * Creates the staging folder, starts copying the raw files into it on the release task and
 * writes the derived files beside them (`writeDerived`, given the staging path), for the pilot's
 * release and a release kind's alike. When either fails, the task is stopped and the staging
 * folder removed before the error goes on: nothing half-written is left.
 */
async function stageRelease<Derived>(
  createStaging: () => Promise<Staging>,
  raw: RawFilesToStage,
  writeDerived: (stagingPath: string) => Promise<Derived>,
): Promise<{ staging: Staging; rawTask: ReleaseTask<RawFileWritten[]>; derived: Derived }> {
  const staging = await createStaging();
  let rawTask: ReleaseTask<RawFileWritten[]> | null = null;
  try {
    rawTask = await startReleaseTask('write-raw-files', {
      runDir: raw.runDir,
      staging: staging.path,
      paths: raw.paths,
      forbidden: raw.forbidden,
      ...(raw.verbatim ? { verbatim: true } : {}),
    });
    const derived = await writeDerived(staging.path);
    return { staging, rawTask, derived };
  } catch (error) {
    await rawTask?.stop();
    await rm(staging.path, { recursive: true, force: true });
    throw error;
  }
}

/** What {@link releaseSources} and {@link kindReleaseSources} give {@link writeRelease}. */
interface ReleaseSources {
  readonly files: Map<string, ReleaseFileSource>;
  readonly runId: string;
  readonly evidenceBanner: string | null;
  readonly staging: Staging;
  readonly rawTask: ReleaseTask<RawFileWritten[]>;
}

/** Every file of a release as a source: the raw files, the derived files, the packed code. */
function releaseFileSources(
  raw: readonly string[],
  rawTask: ReleaseTask<RawFileWritten[]>,
  derived: ReadonlyMap<string, WrittenDerivedFile>,
  code: ReleaseCode | undefined,
): Map<string, ReleaseFileSource> {
  const files = new Map<string, ReleaseFileSource>();
  const rawResults = rawTask.result.then((written) => new Map(written.map((w) => [w.path, w])));
  rawResults.catch(() => {});
  for (const path of raw)
    files.set(path, async () => ({ raw: (await rawResults).get(path) as RawFileWritten }));
  for (const [path, written] of derived) files.set(path, async () => ({ written }));
  for (const [path, bytes] of code ?? new Map<string, Uint8Array>())
    files.set(path, async () => bytes);
  return files;
}

/**
 * {@link releaseSources} for a release kind (`options.kind`): the kind's raw files are copied
 * into the staging folder by the same release task as the pilot's (scanned, canonical JSON, gzip
 * byte for byte) and its derived files written there as the pilot's are (hashed and scanned).
 */
async function kindReleaseSources(
  runDir: string,
  options: WriteReleaseOptions,
  forbidden: readonly string[],
  createStaging: () => Promise<Staging>,
): Promise<ReleaseSources> {
  const kind = options.kind as ReleaseKind;
  options.onStep?.({ step: 'read', runDir });
  const raw = (await listTreeFiles(runDir)).files.filter(
    (path) => kind.isRawPath(path) && !path.endsWith('.tmp'),
  );
  const derived = await kind.derive(runDir);
  const {
    staging,
    rawTask,
    derived: written,
  } = await stageRelease(
    createStaging,
    { runDir, paths: raw, forbidden, verbatim: kind.rawCopy === 'verbatim' },
    async (stagingPath) => {
      const out = new DerivedFilesOnDisk(stagingPath, forbidden);
      for (const [path, text] of derived.files) out.file(path, text);
      return out.finish();
    },
  );
  return {
    files: releaseFileSources(raw, rawTask, written, options.code),
    runId: derived.runId ?? basename(runDir),
    evidenceBanner: derived.evidenceBanner,
    staging,
    rawTask,
  };
}
