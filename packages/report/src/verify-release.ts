import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AnyExperimentScorer } from '@chi/run';
import { type QualityAlphas, QualityAlphasSchema, RunFolderDamagedError } from '@chi/spec';
import { z } from 'zod';
import { canonicalJson, sha256Hex } from './canonical-json';
import { parseCsv } from './csv';
import { isCodePath } from './release-code';
import {
  buildDerivedRelease,
  DEFAULT_RELEASE_PARAMETERS,
  type DerivedRelease,
  derivedPaths,
  derivedText,
  isRawPath,
  REPORT_VERSION,
  type ReleaseParameters,
} from './release-files';
import { type RunRecords, readRunFolder, requestRecordFile } from './run-folder';
import { checkSha256Sums, compareUtf8, listTreeFiles } from './sha256-sums';

/** One difference found by {@link verifyRelease}. */
export interface VerifyMismatch {
  /** The release file, relative to its root. */
  readonly file: string;
  /**
   * - `hash`: the file does not match SHA256SUMS (or is missing / unlisted);
   * - `raw`: a raw record is unreadable or inconsistent (manifest hash, request hash);
   * - `value`: a number or value differs from the recomputation;
   * - `missing`: a file the recomputation produces is absent;
   * - `unexpected`: a derived-looking file the recomputation does not produce.
   */
  readonly kind: 'hash' | 'raw' | 'value' | 'missing' | 'unexpected';
  /** Where in the file: a JSON path, `row 3, column estimate`, `line 12`; null for the whole file. */
  readonly at: string | null;
  readonly recorded: string | null;
  readonly recomputed: string | null;
  /** One line for a human. */
  readonly message: string;
}

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

const MAX_PER_FILE = 50;

const SHOW_CHARS = 200;

function show(value: unknown): string {
  const text = value === undefined ? '(absent)' : JSON.stringify(value);
  return text.length > SHOW_CHARS
    ? `${text.slice(0, SHOW_CHARS)}… (${text.length} characters)`
    : text;
}

/** Leaf-by-leaf differences of two JSON values, with paths like `memory[3].qualityScore.estimate`. */
export function diffJson(
  recorded: unknown,
  recomputed: unknown,
  path = '',
): { at: string; recorded: string; recomputed: string }[] {
  if (Array.isArray(recorded) && Array.isArray(recomputed)) {
    const out: { at: string; recorded: string; recomputed: string }[] = [];
    const n = Math.max(recorded.length, recomputed.length);
    for (let i = 0; i < n; i++) out.push(...diffJson(recorded[i], recomputed[i], `${path}[${i}]`));
    return out;
  }
  if (
    recorded !== null &&
    recomputed !== null &&
    typeof recorded === 'object' &&
    typeof recomputed === 'object' &&
    !Array.isArray(recorded) &&
    !Array.isArray(recomputed)
  ) {
    const out: { at: string; recorded: string; recomputed: string }[] = [];
    const keys = [...new Set([...Object.keys(recorded), ...Object.keys(recomputed)])].sort(
      compareUtf8,
    );
    for (const key of keys) {
      out.push(
        ...diffJson(
          (recorded as Record<string, unknown>)[key],
          (recomputed as Record<string, unknown>)[key],
          path === '' ? key : `${path}.${key}`,
        ),
      );
    }
    return out;
  }
  if (canonicalOrNull(recorded) === canonicalOrNull(recomputed)) return [];
  return [
    { at: path === '' ? '(root)' : path, recorded: show(recorded), recomputed: show(recomputed) },
  ];
}

function canonicalOrNull(value: unknown): string | null {
  if (value === undefined) return null;
  try {
    return canonicalJson(value);
  } catch {
    return String(value);
  }
}

function compareFile(file: string, recorded: string, recomputed: string): VerifyMismatch[] {
  if (recorded === recomputed) return [];
  const value = (
    at: string | null,
    a: string | null,
    b: string | null,
    what: string,
  ): VerifyMismatch => ({
    file,
    kind: 'value',
    at,
    recorded: a,
    recomputed: b,
    message: `${file}${at === null ? '' : ` at ${at}`}: ${what}`,
  });
  const out: VerifyMismatch[] = [];
  try {
    if (file.endsWith('.json')) {
      for (const d of diffJson(JSON.parse(recorded) as unknown, JSON.parse(recomputed) as unknown))
        out.push(
          value(
            d.at,
            d.recorded,
            d.recomputed,
            `recorded ${d.recorded}, recomputed ${d.recomputed}`,
          ),
        );
    } else if (file.endsWith('.jsonl')) {
      const a = recorded.split('\n').filter((l) => l !== '');
      const b = recomputed.split('\n').filter((l) => l !== '');
      for (let i = 0; i < Math.max(a.length, b.length); i++) {
        const left = a[i] === undefined ? undefined : (JSON.parse(a[i] as string) as unknown);
        const right = b[i] === undefined ? undefined : (JSON.parse(b[i] as string) as unknown);
        for (const d of diffJson(left, right, `line ${i + 1}`))
          out.push(
            value(
              d.at,
              d.recorded,
              d.recomputed,
              `recorded ${d.recorded}, recomputed ${d.recomputed}`,
            ),
          );
      }
    } else if (file.endsWith('.csv')) {
      const a = parseCsv(recorded);
      const b = parseCsv(recomputed);
      const header = b[0] ?? [];
      for (let r = 0; r < Math.max(a.length, b.length); r++) {
        for (let c = 0; c < Math.max(a[r]?.length ?? 0, b[r]?.length ?? 0); c++) {
          const x = a[r]?.[c];
          const y = b[r]?.[c];
          if (x !== y)
            out.push(
              value(
                `row ${r}, column ${header[c] ?? c}`,
                show(x),
                show(y),
                `recorded ${show(x)}, recomputed ${show(y)}`,
              ),
            );
        }
      }
    }
  } catch (error) {
    out.push(value(null, null, null, `unparseable: ${(error as Error).message}`));
  }
  if (out.length === 0) {
    // text (report.md, report.html, SVG, README): name the first differing lines
    const a = recorded.split('\n');
    const b = recomputed.split('\n');
    for (let i = 0; i < Math.max(a.length, b.length) && out.length < MAX_PER_FILE; i++) {
      if (a[i] !== b[i])
        out.push(
          value(
            `line ${i + 1}`,
            show(clip(a[i])),
            show(clip(b[i])),
            `line ${i + 1} differs: recorded ${show(clip(a[i]))}, recomputed ${show(clip(b[i]))}`,
          ),
        );
    }
  }
  if (out.length > MAX_PER_FILE) {
    const more = out.length - MAX_PER_FILE;
    return [
      ...out.slice(0, MAX_PER_FILE),
      value(null, null, null, `… and ${more} more differences`),
    ];
  }
  return out;
}

function clip(text: string | undefined): string | undefined {
  return text === undefined || text.length <= 160 ? text : `${text.slice(0, 160)}…`;
}

/** Raw-record consistency: the manifest hash, request hashes and the hashes attempts carry. */
function rawConsistency(records: RunRecords, manifestSha256File: string | null): VerifyMismatch[] {
  const out: VerifyMismatch[] = [];
  const raw = (file: string, message: string): VerifyMismatch => ({
    file,
    kind: 'raw',
    at: null,
    recorded: null,
    recomputed: null,
    message: `${file}: ${message}`,
  });
  if (
    manifestSha256File !== null &&
    manifestSha256File !== `${records.manifestSha256}  manifest.json\n`
  ) {
    out.push(
      raw(
        'manifest.sha256',
        `does not hold the SHA-256 of manifest.json (${records.manifestSha256})`,
      ),
    );
  }
  for (const [requestId, request] of records.requests) {
    const actual = sha256Hex(canonicalJson(request.messages));
    if (actual !== request.requestSha256)
      out.push(
        raw(
          requestRecordFile(records, requestId),
          `requestSha256 of ${requestId} is ${request.requestSha256}, the messages hash to ${actual}`,
        ),
      );
  }
  records.attempts.forEach((attempt, index) => {
    if (attempt.manifestSha256 !== records.manifestSha256)
      out.push(
        raw(
          'attempts.jsonl',
          `line ${index + 1} carries manifest hash ${attempt.manifestSha256}, the manifest hashes to ${records.manifestSha256}`,
        ),
      );
    const recorded = records.requestHashes.get(attempt.requestId);
    if (recorded !== undefined && attempt.requestSha256 !== recorded) {
      out.push(
        raw(
          'attempts.jsonl',
          `line ${index + 1} (${attempt.attemptId}) carries request hash ${attempt.requestSha256}, ${requestRecordFile(records, attempt.requestId)} has ${recorded}`,
        ),
      );
    }
  });
  return out;
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
}

/**
 * Verifies a release: every file against SHA256SUMS; the raw records' internal hashes; then
 * re-parses every raw response, re-scores, re-runs the bootstrap with the recorded seed, rebuilds
 * every derived file (scores, traces, chart data, CSV, figures, report) and compares each with the
 * published one, value by value. Every difference is returned with the file it is in.
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
  const mismatches: VerifyMismatch[] = [];
  for (const problem of await checkSha256Sums(dir)) {
    mismatches.push({
      file: problem.path,
      kind: 'hash',
      at: null,
      recorded: null,
      recomputed: null,
      message: problem.message,
    });
  }
  const { files } = await listTreeFiles(dir);
  let records: RunRecords;
  let parameters: ReleaseParameters;
  try {
    records = await readRunFolder(dir);
    parameters = await recordedParameters(dir).catch(() => DEFAULT_RELEASE_PARAMETERS);
  } catch (error) {
    const file = fileOf(error);
    mismatches.push({
      file,
      kind: 'raw',
      at: null,
      recorded: null,
      recomputed: null,
      message: `${file}: unreadable raw record: ${(error as Error).message.split('\n')[0]}`,
    });
    return {
      ok: false,
      mismatches,
      checkedFiles: files.length,
      recomputedFiles: 0,
      versionNote: null,
    };
  }
  const versionNote = await releaseVersionNote(dir);
  const manifestSha256File = await readFile(join(dir, 'manifest.sha256'), 'utf8').catch(() => null);
  mismatches.push(...rawConsistency(records, manifestSha256File));

  let derived: DerivedRelease;
  try {
    const code = new Map<string, Uint8Array>();
    for (const path of files.filter(isCodePath))
      code.set(path, new Uint8Array(await readFile(join(dir, path))));
    derived = await buildDerivedRelease(records, parameters, code, options.scorers);
  } catch (error) {
    mismatches.push({
      file: fileOf(error),
      kind: 'raw',
      at: null,
      recorded: null,
      recomputed: null,
      message: `recomputation failed: ${(error as Error).message.split('\n')[0]}`,
    });
    return { ok: false, mismatches, checkedFiles: files.length, recomputedFiles: 0, versionNote };
  }
  const derivedSet = new Set(derivedPaths(derived));
  for (const path of derivedSet) {
    const text = derivedText(derived, path) as string;
    let recorded: string;
    try {
      recorded = await readFile(join(dir, path), 'utf8');
    } catch {
      mismatches.push({
        file: path,
        kind: 'missing',
        at: null,
        recorded: null,
        recomputed: null,
        message: `${path}: the recomputation produces this file but the release lacks it`,
      });
      continue;
    }
    mismatches.push(...compareFile(path, recorded, text));
  }
  for (const path of files) {
    if (!isRawPath(path) && !isCodePath(path) && !derivedSet.has(path)) {
      mismatches.push({
        file: path,
        kind: 'unexpected',
        at: null,
        recorded: null,
        recomputed: null,
        message: `${path}: not a raw record and not produced by the recomputation`,
      });
    }
  }
  const sorted = mismatches.sort((a, b) => compareUtf8(a.file, b.file));
  return {
    ok: sorted.length === 0,
    mismatches: sorted,
    checkedFiles: files.length + 1,
    recomputedFiles: derivedSet.size,
    versionNote,
  };
}
