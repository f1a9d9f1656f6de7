import { randomBytes } from 'node:crypto';
import { link, mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { ChiError, InvalidArgumentError } from '@chi/spec';
import { canonicalJson } from './canonical-json';
import { failpoint } from './failpoint';
import type { ReleaseCode } from './release-code';
import {
  buildDerivedRelease,
  DEFAULT_RELEASE_PARAMETERS,
  isRawPath,
  type ReleaseParameters,
} from './release-files';
import { readRunFolder } from './run-folder';
import { findSecrets, type SecretFinding } from './secrets';
import { compareUtf8, listTreeFiles, SHA256SUMS_FILE, writeSha256Sums } from './sha256-sums';

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

function isTornTail(lines: readonly string[], index: number): boolean {
  return index === lines.length - 1;
}

/** Raw run files, as published: JSON re-serialized as RFC 8785, JSONL line by line. */
async function rawFiles(runDir: string): Promise<Map<string, string | Uint8Array>> {
  const { files } = await listTreeFiles(runDir);
  const out = new Map<string, string | Uint8Array>();
  for (const path of files) {
    if (!isRawPath(path) || path.endsWith('.tmp')) continue;
    if (path.endsWith('.gz')) {
      // gzip run files (payloads, worlds) are copied byte for byte: their bytes are canonical
      out.set(path, new Uint8Array(await readFile(join(runDir, path))));
      continue;
    }
    const text = await readFile(join(runDir, path), 'utf8');
    if (path.endsWith('.jsonl')) {
      const lines = text.split('\n');
      if (lines[lines.length - 1] === '') lines.pop();
      const kept: string[] = [];
      lines.forEach((line, index) => {
        try {
          kept.push(canonicalJson(JSON.parse(line) as unknown));
        } catch (error) {
          if (!isTornTail(lines, index))
            throw new InvalidArgumentError(
              `${path} line ${index + 1}`,
              `expected JSON: ${(error as Error).message}`,
            );
        }
      });
      out.set(path, kept.map((line) => `${line}\n`).join(''));
    } else if (path.endsWith('.json')) {
      out.set(path, canonicalJson(JSON.parse(text) as unknown, path));
    } else {
      out.set(path, text);
    }
  }
  return out;
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

/**
 * Writes the release into a sibling staging folder, then renames it into place: `outDir` holds
 * either the previous complete release or the new complete one, never a mix. A writer killed
 * before the rename leaves only staging folders, which the next writer removes.
 */
/**
 * Writes one release file. A gzip run file (payload, world) is hard-linked to the run folder's
 * copy when it can be (same file system): its bytes are identical and never rewritten, so a
 * release inside its run folder does not store them twice. Otherwise it is written.
 */
async function writeReleaseFile(
  target: string,
  content: string | Uint8Array,
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
  await writeFile(target, content);
}

async function writeAtomically(
  outDir: string,
  files: ReadonlyMap<string, string | Uint8Array>,
  beforeChecksums: () => void,
  links: ReadonlyMap<string, string> = new Map(),
): Promise<void> {
  const { partialPrefix, replacedPrefix } = stagingNames(outDir);
  const suffix = randomBytes(4).toString('hex');
  const staging = join(dirname(outDir), `${partialPrefix}${suffix}`);
  await mkdir(staging, { recursive: true });
  for (const [path, text] of [...files.entries()].sort(([a], [b]) => compareUtf8(a, b))) {
    await mkdir(dirname(join(staging, path)), { recursive: true });
    await writeReleaseFile(join(staging, path), text, links.get(path));
    await failpoint('release:file');
  }
  beforeChecksums();
  await writeSha256Sums(staging);
  await failpoint('release:before-rename');
  if ((await listOrNull(outDir)) === null) {
    await rename(staging, outDir);
    return;
  }
  const replaced = join(dirname(outDir), `${replacedPrefix}${suffix}`);
  await rename(outDir, replaced);
  await failpoint('release:between-renames');
  await rename(staging, outDir);
  await rm(replaced, { recursive: true, force: true });
}

/** Secrets in one release file; a gzip payload is scanned uncompressed (as the JSON it holds). */
function scanFile(path: string, content: string | Uint8Array, forbidden: readonly string[]) {
  if (typeof content === 'string') return findSecrets(path, content, forbidden);
  if (!path.endsWith('.gz')) return [];
  const text = gunzipSync(content).toString('utf8');
  return findSecrets(path.slice(0, -'.gz'.length), text, forbidden).map((finding) => ({
    ...finding,
    path,
  }));
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
  const parameters: ReleaseParameters = { ...DEFAULT_RELEASE_PARAMETERS, ...options.parameters };
  options.onStep?.({ step: 'read', runDir });
  const records = await readRunFolder(runDir);
  const raw = await rawFiles(runDir);
  options.onStep?.({ step: 'analyze', resamples: records.manifest.analysis.resamples });
  const code = options.code ?? new Map<string, Uint8Array>();
  const derived = await buildDerivedRelease(records, parameters, code);
  const files = new Map<string, string | Uint8Array>([...raw, ...derived.files]);

  const forbidden = options.forbiddenStrings ?? defaultForbidden();
  // the code is our published packages, not run data: it is not scanned (its sources name
  // header fields and key formats on purpose, to redact them)
  const findings = [...files.entries()].flatMap(([path, text]) => scanFile(path, text, forbidden));
  if (findings.length > 0) throw new SecretLeakError(findings);
  for (const [path, bytes] of code) files.set(path, bytes);

  options.onStep?.({ step: 'write', files: files.size });
  await checkReplaceable(outDir, options.overwrite ?? false, new Set(files.keys()));
  await mkdir(dirname(outDir), { recursive: true });
  await removeStaleStaging(outDir);
  const links = new Map(
    [...raw.keys()]
      .filter((path) => path.endsWith('.gz'))
      .map((path) => [path, join(runDir, path)]),
  );
  await writeAtomically(outDir, files, () => options.onStep?.({ step: 'checksums' }), links);
  return {
    outDir,
    files: [...files.keys(), SHA256SUMS_FILE].sort(compareUtf8),
    runId: derived.chartData.run.runId,
    evidenceBanner: derived.files.has('release.json')
      ? (
          JSON.parse(derived.files.get('release.json') as string) as {
            evidenceBanner: string | null;
          }
        ).evidenceBanner
      : null,
  };
}
