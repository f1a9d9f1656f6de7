import { createHash, randomBytes } from 'node:crypto';
import {
  link,
  mkdir,
  open,
  readdir,
  readFile,
  rename,
  rm,
  stat,
  writeFile,
} from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { runEvidenceBanner } from '@chi/analysis';
import { compareUtf8 } from '@chi/analysis/internal';
import type { AnyExperimentScorer } from '@chi/experiment';
import { fileLines } from '@chi/run/internal';
import { ChiError, InvalidArgumentError } from '@chi/spec';
import { canonicalJson, sha256Hex } from './canonical-json';
import { DerivedFilesOnDisk, type WrittenDerivedFile } from './derived-output';
import { failpoint } from './failpoint';
import type { ReleaseCode } from './release-code';
import {
  DEFAULT_RELEASE_PARAMETERS,
  isRawPath,
  produceDerivedRelease,
  type ReleaseParameters,
} from './release-files';
import { type RunRecords, readRunFolder } from './run-folder';
import { findSecrets, JsonlSecretScan, type SecretFinding } from './secrets';
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

/**
 * The canonical lines of a raw JSONL run file (each `\n`-terminated), read line by line: a line
 * that does not parse is an error naming it, unless it is the last (a torn append, dropped).
 */
async function* canonicalJsonLines(file: string, path: string): AsyncGenerator<string> {
  let unparsed: { line: number; message: string } | null = null;
  let number = 0;
  for await (const line of fileLines(file)) {
    number += 1;
    if (unparsed !== null)
      throw new InvalidArgumentError(
        `${path} line ${unparsed.line}`,
        `expected JSON: ${unparsed.message}`,
      );
    let canonical: string;
    try {
      canonical = canonicalJson(JSON.parse(line.text) as unknown);
    } catch (error) {
      unparsed = { line: number, message: (error as Error).message };
      continue;
    }
    yield `${canonical}\n`;
  }
}

/** The raw run files a release copies (relative paths, in listing order). */
async function rawPaths(runDir: string): Promise<string[]> {
  const { files } = await listTreeFiles(runDir);
  return files.filter((path) => isRawPath(path) && !path.endsWith('.tmp'));
}

/** A release file's text with its JSON values when it is JSON (one per JSONL line). */
interface PublishedFile {
  readonly text: string;
  readonly values?: readonly unknown[];
}

/**
 * A gzip run file (payload, world), published byte for byte: its bytes are canonical (fixed
 * level, no name, time 0), so they are never rewritten. `linkFrom` is the run folder's copy.
 */
interface GzipRunFile {
  readonly gzip: Uint8Array;
  readonly linkFrom: string;
}

/**
 * A derived file, already written into the staging folder as it was produced (hashed and scanned
 * for secrets then): nothing is held or written again.
 */
interface DerivedFileWritten {
  readonly written: WrittenDerivedFile;
}

/**
 * A raw JSONL run file (the attempt log, the ledger...), never held: read from the run folder
 * line by line twice, once to scan its canonical lines for secrets and once to write them, so
 * memory does not grow with the log.
 */
interface StreamedJsonlFile {
  readonly lines: () => AsyncIterable<string>;
}

/**
 * What one release file holds: a published text, a gzip run file, a streamed JSONL run file, a
 * derived file already written, or bytes (packed code).
 */
type ReleaseContent =
  | PublishedFile
  | GzipRunFile
  | StreamedJsonlFile
  | DerivedFileWritten
  | Uint8Array;

/**
 * One raw run file, as published: gzip files byte for byte, JSON re-serialized as RFC 8785, JSONL
 * line by line (a torn last line dropped), anything else as it is. Read one file at a time, so
 * the run never sits in memory.
 */
async function publishedRawFile(
  runDir: string,
  path: string,
): Promise<PublishedFile | GzipRunFile | StreamedJsonlFile> {
  if (path.endsWith('.gz')) {
    const linkFrom = join(runDir, path);
    return { gzip: new Uint8Array(await readFile(linkFrom)), linkFrom };
  }
  if (path.endsWith('.jsonl')) return { lines: () => canonicalJsonLines(join(runDir, path), path) };
  const text = await readFile(join(runDir, path), 'utf8');
  if (path.endsWith('.json')) {
    const value = JSON.parse(text) as unknown;
    return { text: canonicalJson(value, path), values: [value] };
  }
  return { text };
}

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

function contentBytes(
  content: Exclude<ReleaseContent, DerivedFileWritten | StreamedJsonlFile>,
): Uint8Array {
  if (content instanceof Uint8Array) return content;
  if ('gzip' in content) return content.gzip;
  return Buffer.from(content.text, 'utf8');
}

/** Lines joined into UTF-8 chunks of at least 64 KiB (one write each, not one per line). */
async function* batchedLines(lines: AsyncIterable<string>): AsyncGenerator<Buffer> {
  let batch: string[] = [];
  let length = 0;
  for await (const line of lines) {
    batch.push(line);
    length += line.length;
    if (length < 64 * 1024) continue;
    yield Buffer.from(batch.join(''), 'utf8');
    batch = [];
    length = 0;
  }
  if (batch.length > 0) yield Buffer.from(batch.join(''), 'utf8');
}

/** Writes chunks of a file in order and returns the SHA-256 of the bytes written. */
async function writeChunks(
  target: string,
  chunks: Iterable<Buffer> | AsyncIterable<Buffer>,
): Promise<string> {
  const hash = createHash('sha256');
  const handle = await open(target, 'w');
  try {
    for await (const chunk of chunks) {
      hash.update(chunk);
      await handle.write(chunk);
    }
  } finally {
    await handle.close();
  }
  return hash.digest('hex');
}

/** The secrets a streamed JSONL file would publish, scanned one canonical line at a time. */
async function scanStreamed(
  path: string,
  file: StreamedJsonlFile,
  forbidden: readonly string[],
): Promise<readonly SecretFinding[]> {
  const scan = new JsonlSecretScan(path, forbidden);
  for await (const line of file.lines()) {
    const text = line.slice(0, -1);
    scan.line(text, JSON.parse(text) as unknown);
  }
  return scan.findings();
}

/**
 * Writes one release file. A gzip run file is hard-linked to the run folder's copy when it can be
 * (same file system): its bytes are identical and never rewritten, so a release inside its run
 * folder does not store them twice. Otherwise the same bytes are written.
 */
async function writeReleaseFile(
  target: string,
  bytes: Uint8Array,
  linkFrom: string | undefined,
): Promise<void> {
  if (linkFrom !== undefined) {
    try {
      await link(linkFrom, target);
      return;
    } catch {
      // another file system or no hard links: fall back to a copy of the same bytes
    }
  }
  await writeFile(target, bytes);
}

/**
 * The secrets one release file would publish. Packed code is not scanned (its sources name header
 * fields and key formats on purpose, to redact them); a gzip run file is scanned decompressed.
 */
async function scanContent(
  path: string,
  content: ReleaseContent,
  forbidden: readonly string[],
): Promise<readonly SecretFinding[]> {
  if (content instanceof Uint8Array) return [];
  if ('lines' in content) return scanStreamed(path, content, forbidden);
  if ('written' in content) return content.written.findings;
  if ('gzip' in content) {
    const text = gunzipSync(content.gzip).toString('utf8');
    return findSecrets(path.slice(0, -'.gz'.length), text, forbidden).map((finding) => ({
      ...finding,
      path,
    }));
  }
  return findSecrets(path, content.text, forbidden, content.values);
}

/** Writes one release file's content and returns the SHA-256 of the bytes written. */
async function writeContent(target: string, content: ReleaseContent): Promise<string> {
  if (!(content instanceof Uint8Array) && 'written' in content) return content.written.sha256;
  if (!(content instanceof Uint8Array) && 'lines' in content)
    return writeChunks(target, batchedLines(content.lines()));
  const bytes = contentBytes(content);
  await writeReleaseFile(target, bytes, 'linkFrom' in content ? content.linkFrom : undefined);
  return sha256Hex(bytes);
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
  scan: (path: string, content: ReleaseContent) => Promise<readonly SecretFinding[]>,
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
    const found = await scan(path, content);
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
  scan: (path: string, content: ReleaseContent) => Promise<readonly SecretFinding[]>,
  beforeChecksums: () => void,
): Promise<void> {
  const { entries, findings } = await writeFiles(staging.path, files, scan);
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
  const scan = (path: string, content: ReleaseContent) => scanContent(path, content, forbidden);
  const { files, runId, evidenceBanner, staging } = await releaseSources(
    runDir,
    options,
    forbidden,
    () => createStaging(outDir),
  );
  try {
    options.onStep?.({ step: 'write', files: files.size });
    await checkReplaceable(outDir, options.overwrite ?? false, new Set(files.keys()));
    await completeStaging(staging, files, scan, () => options.onStep?.({ step: 'checksums' }));
  } catch (error) {
    // nothing reaches outDir: the files written so far go with the staging folder
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
  records: RunRecords,
  staging: string,
  forbidden: readonly string[],
  parameters: ReleaseParameters,
  options: WriteReleaseOptions,
): Promise<{ written: Map<string, WrittenDerivedFile>; runId: string; banner: string | null }> {
  const derived = new DerivedFilesOnDisk(staging, forbidden);
  try {
    const { chartData } = await produceDerivedRelease(
      records,
      derived,
      parameters,
      options.code ?? new Map<string, Uint8Array>(),
      options.scorers,
    );
    return {
      written: derived.finish(),
      runId: chartData.run.runId,
      banner: runEvidenceBanner(chartData.run),
    };
  } catch (error) {
    derived.abandon();
    throw error;
  }
}

/**
 * Every file of the release as a source to produce it from, with the run's ID and evidence banner.
 * The derived files are written into the staging folder (`createStaging`, called once the run is
 * read; removed again when producing them fails) as they are produced, so none of them is held;
 * the run records, the scores and the chart data are dropped when this returns.
 */
async function releaseSources(
  runDir: string,
  options: WriteReleaseOptions,
  forbidden: readonly string[],
  createStaging: () => Promise<Staging>,
): Promise<{
  files: Map<string, ReleaseFileSource>;
  runId: string;
  evidenceBanner: string | null;
  staging: Staging;
}> {
  const parameters: ReleaseParameters = { ...DEFAULT_RELEASE_PARAMETERS, ...options.parameters };
  options.onStep?.({ step: 'read', runDir });
  const records = await readRunFolder(runDir);
  const files = new Map<string, ReleaseFileSource>();
  for (const path of await rawPaths(runDir)) files.set(path, () => publishedRawFile(runDir, path));
  options.onStep?.({ step: 'analyze', resamples: records.manifest.analysis.resamples });
  const staging = await createStaging();
  let derived: Awaited<ReturnType<typeof writeDerivedFiles>>;
  try {
    derived = await writeDerivedFiles(records, staging.path, forbidden, parameters, options);
  } catch (error) {
    await rm(staging.path, { recursive: true, force: true });
    throw error;
  }
  for (const [path, written] of derived.written) files.set(path, async () => ({ written }));
  for (const [path, bytes] of options.code ?? new Map<string, Uint8Array>())
    files.set(path, async () => bytes);
  return { files, runId: derived.runId, evidenceBanner: derived.banner, staging };
}
