import { rmSync } from 'node:fs';
import { lstat, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { isAbsolute, join, relative, sep } from 'node:path';
import { compareUtf8 } from '@chi/analysis/internal';
import type { AnyExperimentScorer } from '@chi/experiment';
import { RUN_FILE_NAME } from '@chi/run/internal';
import { type QualityAlphas, RunFolderDamagedError } from '@chi/spec';
import { QualityAlphasSchema } from '@chi/spec/internal';
import { z } from 'zod';
import { failpoint } from '../failpoint';
import { DerivedFilesOnDisk } from '../release/derived-output';
import { isCodePath } from '../release/release-code';
import {
  DEFAULT_RELEASE_PARAMETERS,
  isRawPath,
  produceDerivedRelease,
  type ReleaseParameters,
  startBlockScoring,
} from '../release/release-files';
import { type ReleaseKind, releaseKindOf } from '../release/release-kind';
import type { RawRecordsChecked } from '../release/release-tasks';
import {
  type ReleaseStream,
  releaseWorkersAvailable,
  startReleaseTask,
} from '../release/release-workers';
import { checkSha256Sums, listTreeFiles, type Sha256SumsProblem } from '../release/sha256-sums';
import { REPORT_VERSION } from '../report-version';
import { rawConsistency } from '../run-folder/raw-consistency';
import { type RunRecords, readRunFolder } from '../run-folder/run-folder';
import { compareReleaseFile } from './compare-release-file';
import type { VerifyMismatch } from './verify-mismatch';

export { diffJson } from './compare-release-file';
export type { VerifyMismatch } from './verify-mismatch';

/** The outcome of {@link verifyRelease}. */
export interface VerifyReport {
  readonly ok: boolean;
  readonly mismatches: readonly VerifyMismatch[];
  /** Files checked by hash, and derived files recomputed and compared. */
  readonly checkedFiles: number;
  /**
   * Set when the release was written by another version of `@chi/report` than the one verifying
   * it: derived files are only expected to match the version that wrote them.
   */
  readonly versionNote: string | null;
  readonly recomputedFiles: number;
}

async function releaseVersionNote(dir: string): Promise<string | null> {
  try {
    const release = JSON.parse(await readFile(join(dir, 'release.json'), 'utf8')) as {
      toolkit?: Record<string, unknown>;
    };
    const written = release.toolkit?.['@chi/report'];
    if (written === REPORT_VERSION) return null;
    return `the release was written by @chi/report ${String(written)}; this is ${REPORT_VERSION}: verify with the version that wrote it`;
  } catch {
    return null;
  }
}

async function recordedParameters(dir: string): Promise<ReleaseParameters> {
  const read = async (path: string) =>
    JSON.parse(await readFile(join(dir, path), 'utf8')) as unknown;
  const scoring = z
    .looseObject({ alphas: QualityAlphasSchema })
    .parse(await read('parameters/scoring.json'));
  const analysis = z
    .looseObject({ exploratoryBelowWorlds: z.int().min(1), caseExamplesPerVerdict: z.int().min(0) })
    .parse(await read('parameters/analysis.json'));
  return {
    alphas: scoring.alphas as QualityAlphas,
    exploratoryBelowWorlds: analysis.exploratoryBelowWorlds,
    caseExamplesPerVerdict: analysis.caseExamplesPerVerdict,
  };
}

function fileOf(error: unknown): string {
  // the scorer names the release file it could not score against (relative to the release)
  if (RunFolderDamagedError.isInstance(error) && !isAbsolute(error.file)) return error.file;
  // readRunFolder wraps a file's validation error as a damaged folder: name that file
  if (RunFolderDamagedError.isInstance(error) && error.cause !== undefined) {
    const inner = fileOf(error.cause);
    if (inner !== '(release)') return inner;
  }
  const field =
    (error as { field?: unknown; subject?: unknown }).field ??
    (error as { subject?: unknown }).subject;
  return typeof field === 'string' ? field.replace(/ line \d+$/, '') : '(release)';
}

/** Options of {@link verifyRelease}. */
export interface VerifyReleaseOptions {
  /**
   * Scorers of the release's module experiments (default: `BUILT_IN_SCORERS`). A release of an
   * added experiment whose scorer wrote files verifies only with that scorer passed here; without
   * it those files are reported as not produced by the recomputation.
   */
  readonly scorers?: readonly AnyExperimentScorer[];
  /**
   * Release kinds of protocols other than the default pilot (`ReleaseKind`): a release whose
   * manifest names one of their protocols is recomputed by that kind. Default: none.
   */
  readonly kinds?: readonly ReleaseKind[];
}

/** An error's message on one line: its first line, or (`whole`) every line joined. */
function messageLine(error: unknown, whole: boolean): string {
  const lines = (error as Error).message.split('\n');
  if (!whole) return lines[0] as string;
  return lines
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .join(' ');
}

/**
 * A raw record that could not be read: by its path in the release when the error names one; with
 * `whole`, the error's every line (a release kind's reader names the line and field below).
 */
function unreadableRawMismatch(dir: string, error: unknown, whole = false): VerifyMismatch {
  const damaged =
    RunFolderDamagedError.isInstance(error) && error.file.startsWith(`${dir}${sep}`)
      ? relative(dir, error.file).split(sep).join('/')
      : null;
  const file = damaged ?? fileOf(error);
  return rawMismatch(file, `${file}: unreadable raw record: ${messageLine(error, whole)}`);
}

/**
 * Reads the release's raw records, checks their internal hashes and recomputes every derived file
 * into `spill`, adding what it finds to `mismatches`. Returns the derived paths, or null when the
 * raw records are unreadable or the recomputation failed; the records are dropped on return.
 */
async function recomputeInto(
  dir: string,
  files: readonly string[],
  spill: string,
  options: VerifyReleaseOptions,
  mismatches: VerifyMismatch[],
): Promise<{ paths: string[] | null; versionNote: string | null; checks: RawRecordsChecked }> {
  let records: RunRecords;
  let parameters: ReleaseParameters;
  try {
    records = await readRunFolder(dir, { release: true });
    parameters = await recordedParameters(dir).catch(() => DEFAULT_RELEASE_PARAMETERS);
  } catch (error) {
    // A damaged-folder error names the file itself: reported by its path in the release.
    mismatches.push(unreadableRawMismatch(dir, error));
    return { paths: null, versionNote: null, checks: await rawChecksHere(dir, null) };
  }
  const versionNote = await releaseVersionNote(dir);
  const blocks = startBlockScoring(
    { dir, release: true, verify: true },
    options.scorers,
    parameters.alphas,
  );
  // the hashes and raw records: checked by the scoring worker once its blocks are scored, by a
  // worker of their own beside the recomputation, or here (one thread)
  const { checks } = await rawChecks(dir, records, blocks);
  const derived = new DerivedFilesOnDisk(spill, null);
  try {
    const code = new Map<string, Uint8Array>();
    for (const path of files.filter(isCodePath))
      code.set(path, new Uint8Array(await readFile(join(dir, path))));
    await produceDerivedRelease(
      records,
      derived,
      parameters,
      code,
      options.scorers,
      blocks?.chunks,
    );
    const paths = [...derived.finish().keys()].sort(compareUtf8);
    return { paths, versionNote, checks: await checks };
  } catch (error) {
    derived.abandon();
    const message = `recomputation failed: ${(error as Error).message.split('\n')[0]}`;
    mismatches.push(rawMismatch(fileOf(error), message));
    return { paths: null, versionNote, checks: await checks };
  } finally {
    await blocks?.stop();
  }
}

/**
 * The hash and raw-record checks of a release as a promise: the block-scoring worker's result
 * when there is one, else a worker of their own (`verify-raw-records`) when the command has more
 * than one thread, else computed here now. A worker that fails gives way to the checks here.
 */
async function rawChecks(
  dir: string,
  records: RunRecords,
  blocks: ReleaseStream<unknown> | null,
): Promise<{ checks: Promise<RawRecordsChecked> }> {
  // (wrapped: an async function returning the promise itself would wait for it)
  const here = () => rawChecksHere(dir, records);
  let checks: Promise<RawRecordsChecked>;
  if (blocks !== null) checks = blocks.result.then((value) => value as RawRecordsChecked, here);
  else if (!releaseWorkersAvailable()) checks = Promise.resolve(await here());
  else checks = (await startReleaseTask('verify-raw-records', { dir })).result.then((v) => v, here);
  checks.catch(() => {});
  return { checks };
}

/** Every file against SHA256SUMS, and the raw records' own hashes (none for unreadable records). */
async function rawChecksHere(dir: string, records: RunRecords | null): Promise<RawRecordsChecked> {
  const hashes = await checkSha256Sums(dir);
  if (records === null) return { hashes, raw: [] };
  const manifestSha256File = await readFile(join(dir, RUN_FILE_NAME.manifestSha256), 'utf8').catch(
    () => null,
  );
  return { hashes, raw: rawConsistency(records, manifestSha256File) };
}

function rawMismatch(file: string, message: string): VerifyMismatch {
  return { file, kind: 'raw', at: null, recorded: null, recomputed: null, message };
}

/**
 * The mismatches of one derived file, recorded in `dir` and recomputed into `spill`. A file the
 * release lacks is `missing`; one that is there but cannot be read or compared is reported with
 * the error itself, never as missing.
 */
async function compareDerived(dir: string, spill: string, path: string): Promise<VerifyMismatch[]> {
  const recorded = join(dir, path);
  try {
    return await compareReleaseFile(path, recorded, join(spill, path));
  } catch (error) {
    const absent = (await lstat(recorded).catch(() => null)) === null;
    const message = absent
      ? `${path}: the recomputation produces this file but the release lacks it`
      : `${path}: cannot be compared with the recomputation: ${(error as Error).message.split('\n')[0]}`;
    return [
      {
        file: path,
        kind: absent ? 'missing' : 'value',
        at: null,
        recorded: null,
        recomputed: null,
        message,
      },
    ];
  }
}

/**
 * Verifies a release: every file against SHA256SUMS; the raw records' internal hashes; then
 * re-parses every raw response, re-scores, re-runs the bootstrap with the recorded seed, rebuilds
 * every derived file (scores, traces, chart data, CSV, figures, report) and compares each with the
 * published one, value by value. Every difference is returned with the file it is in.
 *
 * The derived files are rebuilt into a private temporary folder (removed before this returns or
 * throws, or when the process exits first) and compared with the published ones a line or a chunk at a time, so neither is held.
 *
 * @example
 * ```ts
 * const report = await verifyRelease('release');
 * if (!report.ok) for (const m of report.mismatches) console.error(m.message);
 * ```
 */
export async function verifyRelease(
  dir: string,
  options: VerifyReleaseOptions = {},
): Promise<VerifyReport> {
  const kind = await releaseKindOf(dir, options.kinds ?? []);
  if (kind !== null) return verifyKindRelease(dir, kind);
  const recomputed: VerifyMismatch[] = [];
  return checkAndRecompute(dir, options, recomputed);
}

function unexpectedMismatch(path: string): VerifyMismatch {
  return {
    file: path,
    kind: 'unexpected',
    at: null,
    recorded: null,
    recomputed: null,
    message: `${path}: not a raw record and not produced by the recomputation`,
  };
}

/**
 * The derived files of a release kind recomputed from the release's raw part into `spill` and
 * compared with the published ones; with the files neither raw, code nor derived. A derivation
 * that fails is one mismatch: `raw` naming a damaged raw file, else the recomputation's error.
 */
async function compareKindRelease(
  dir: string,
  kind: ReleaseKind,
  files: readonly string[],
  spill: string,
): Promise<{ mismatches: VerifyMismatch[]; recomputedFiles: number }> {
  let derived: ReadonlyMap<string, string>;
  try {
    derived = (await kind.derive(dir)).files;
  } catch (error) {
    if (RunFolderDamagedError.isInstance(error))
      return { mismatches: [unreadableRawMismatch(dir, error, true)], recomputedFiles: 0 };
    const message = `recomputation failed: ${messageLine(error, true)}`;
    return { mismatches: [rawMismatch(fileOf(error), message)], recomputedFiles: 0 };
  }
  const paths = [...derived.keys()].sort(compareUtf8);
  const out = new DerivedFilesOnDisk(spill, null);
  for (const path of paths) out.file(path, derived.get(path) as string);
  out.finish();
  const mismatches: VerifyMismatch[] = [];
  for (const path of paths) mismatches.push(...(await compareDerived(dir, spill, path)));
  for (const path of files)
    if (!kind.isRawPath(path) && !isCodePath(path) && !derived.has(path))
      mismatches.push(unexpectedMismatch(path));
  return { mismatches, recomputedFiles: paths.length };
}

/**
 * {@link verifyRelease} of a release kind's release: every file against SHA256SUMS, then the
 * kind's derived files recomputed from the raw part and compared value by value, as the pilot's.
 */
async function verifyKindRelease(dir: string, kind: ReleaseKind): Promise<VerifyReport> {
  const { files } = await listTreeFiles(dir);
  const hashes = (await checkSha256Sums(dir)).map(hashMismatch);
  const spill = await mkdtemp(join(tmpdir(), 'chi-verify-'));
  const removeOnExit = () => rmSync(spill, { recursive: true, force: true });
  process.once('exit', removeOnExit);
  try {
    await failpoint('verify:spill');
    const compared = await compareKindRelease(dir, kind, files, spill);
    const mismatches = [...hashes, ...compared.mismatches].sort((a, b) =>
      compareUtf8(a.file, b.file),
    );
    return {
      ok: mismatches.length === 0,
      mismatches,
      checkedFiles: files.length + 1,
      recomputedFiles: compared.recomputedFiles,
      versionNote: null,
    };
  } finally {
    process.removeListener('exit', removeOnExit);
    await rm(spill, { recursive: true, force: true });
  }
}

function hashMismatch(problem: Sha256SumsProblem): VerifyMismatch {
  return {
    file: problem.path,
    kind: 'hash',
    at: null,
    recorded: null,
    recomputed: null,
    message: problem.message,
  };
}

/**
 * Recomputes every derived file of the release at `dir` and compares each with the published one,
 * adding what differs to `recomputed`; the hash and raw-record mismatches come first, in the
 * order they were always reported.
 */
async function checkAndRecompute(
  dir: string,
  options: VerifyReleaseOptions,
  recomputed: VerifyMismatch[],
): Promise<VerifyReport> {
  const { files } = await listTreeFiles(dir);
  const spill = await mkdtemp(join(tmpdir(), 'chi-verify-'));
  // also when the process exits mid-way (`chi`'s second Ctrl-C calls process.exit)
  const removeOnExit = () => rmSync(spill, { recursive: true, force: true });
  process.once('exit', removeOnExit);
  try {
    await failpoint('verify:spill');
    const { paths, versionNote, checks } = await recomputeInto(
      dir,
      files,
      spill,
      options,
      recomputed,
    );
    const all = () => [...checks.hashes.map(hashMismatch), ...checks.raw, ...recomputed];
    if (paths === null) {
      const mismatches = all();
      return { ok: false, mismatches, checkedFiles: files.length, recomputedFiles: 0, versionNote };
    }
    for (const path of paths) recomputed.push(...(await compareDerived(dir, spill, path)));
    const derivedSet = new Set(paths);
    for (const path of files) {
      if (!isRawPath(path) && !isCodePath(path) && !derivedSet.has(path))
        recomputed.push(unexpectedMismatch(path));
    }
    const sorted = all().sort((a, b) => compareUtf8(a.file, b.file));
    return {
      ok: sorted.length === 0,
      mismatches: sorted,
      checkedFiles: files.length + 1,
      recomputedFiles: derivedSet.size,
      versionNote,
    };
  } finally {
    process.removeListener('exit', removeOnExit);
    await rm(spill, { recursive: true, force: true });
  }
}
