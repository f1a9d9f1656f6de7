import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { compareUtf8 } from '@chi/analysis/internal';
import { InvalidArgumentError, ValidationError, type ValidationIssue } from '@chi/spec';

/** The name of the checksum file at the root of a release. */
export const SHA256SUMS_FILE = 'SHA256SUMS';

/** One line of a `SHA256SUMS` file: a file path relative to the release root and its digest. */
export interface Sha256SumsEntry {
  /** Path relative to the release root, `/`-separated, e.g. `figures/memory-capacity.svg`. */
  readonly path: string;
  /** Lowercase hex SHA-256 of the file's bytes. */
  readonly sha256: string;
}

/** One problem found by {@link checkSha256Sums}. */
export interface Sha256SumsProblem {
  readonly path: string;
  /**
   * - `mismatch`: the file's bytes do not hash to the listed digest;
   * - `missing`: listed but absent;
   * - `unlisted`: present in the release but not listed;
   * - `malformed`: the `SHA256SUMS` file itself is absent or unreadable.
   */
  readonly kind: 'mismatch' | 'missing' | 'unlisted' | 'malformed';
  /** What went wrong, in words, with the digests when they differ. */
  readonly message: string;
}

const HEX64 = /^[0-9a-f]{64}$/;

function assertPlainPath(path: string, field: string): void {
  // sha256sum escapes names holding a backslash or newline with a leading "\": release paths never
  // need that, so refuse them rather than write a file only some tools read back.
  if (path === '' || path.includes('\n') || path.includes('\\') || path.includes('\r')) {
    throw new InvalidArgumentError(
      field,
      `expected a relative path without backslash or newline, found ${JSON.stringify(path)}`,
    );
  }
  if (
    path.startsWith('/') ||
    path.split('/').some((part) => part === '' || part === '.' || part === '..')
  ) {
    throw new InvalidArgumentError(
      field,
      `expected a normalized relative path, found ${JSON.stringify(path)}`,
    );
  }
}

/**
 * Formats entries as a `sha256sum -c` compatible file: `<hex>  <path>` (two spaces: text mode),
 * one per line, sorted by path in UTF-8 byte order, newline-terminated.
 *
 * @throws InvalidArgumentError on a malformed digest, an unsafe path or a duplicate path.
 *
 * @example
 * ```ts
 * formatSha256Sums([{ path: 'b.txt', sha256: h2 }, { path: 'a.txt', sha256: h1 }]);
 * // `${h1}  a.txt\n${h2}  b.txt\n`
 * ```
 */
export function formatSha256Sums(entries: readonly Sha256SumsEntry[]): string {
  const sorted = [...entries].sort((a, b) => compareUtf8(a.path, b.path));
  let out = '';
  sorted.forEach((entry, index) => {
    assertPlainPath(entry.path, `entries[${index}].path`);
    if (!HEX64.test(entry.sha256)) {
      throw new InvalidArgumentError(
        `entries[${index}].sha256`,
        `expected 64 lowercase hex characters, found ${JSON.stringify(entry.sha256)}`,
      );
    }
    if (index > 0 && sorted[index - 1]?.path === entry.path) {
      throw new InvalidArgumentError(
        'entries',
        `path ${JSON.stringify(entry.path)} is listed twice`,
      );
    }
    out += `${entry.sha256}  ${entry.path}\n`;
  });
  return out;
}

/**
 * Parses a `SHA256SUMS` file. Accepts text mode (`hex  path`) and binary mode (`hex *path`) lines;
 * blank lines are ignored.
 *
 * @throws ValidationError listing every malformed line by its number.
 */
export function parseSha256Sums(text: string): Sha256SumsEntry[] {
  const entries: Sha256SumsEntry[] = [];
  const issues: ValidationIssue[] = [];
  const seen = new Set<string>();
  text.split('\n').forEach((line, index) => {
    if (line === '') return;
    const match = /^([0-9a-fA-F]{64}) [ *](.+)$/.exec(line);
    if (match === null) {
      issues.push({
        path: `line ${index + 1}`,
        message: `expected "<64 hex digits>  <path>", found ${JSON.stringify(line.slice(0, 120))}`,
      });
      return;
    }
    const path = match[2] as string;
    if (seen.has(path)) {
      issues.push({
        path: `line ${index + 1}`,
        message: `path ${JSON.stringify(path)} is listed twice`,
      });
      return;
    }
    seen.add(path);
    entries.push({ path, sha256: (match[1] as string).toLowerCase() });
  });
  if (issues.length > 0) throw new ValidationError(SHA256SUMS_FILE, issues);
  return entries;
}

/**
 * Every regular file under `rootDir`, as sorted `/`-separated relative paths, excluding the
 * root `SHA256SUMS` itself. Anything that is neither a file nor a directory (a symlink, a socket)
 * is returned in `irregular` so a check can refuse it.
 */
export async function listTreeFiles(
  rootDir: string,
): Promise<{ files: string[]; irregular: string[] }> {
  const files: string[] = [];
  const irregular: string[] = [];
  async function walk(relative: string): Promise<void> {
    const entries = await readdir(relative === '' ? rootDir : join(rootDir, relative), {
      withFileTypes: true,
    });
    for (const entry of entries) {
      const path = relative === '' ? entry.name : `${relative}/${entry.name}`;
      if (entry.isDirectory()) await walk(path);
      else if (entry.isFile()) {
        if (path !== SHA256SUMS_FILE) files.push(path);
      } else irregular.push(path);
    }
  }
  await walk('');
  files.sort(compareUtf8);
  irregular.sort(compareUtf8);
  return { files, irregular };
}

/** SHA-256 (hex) of a file's bytes, streamed: a large log is never held whole. */
async function sha256OfFile(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 }))
    hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** Hashes every file of a tree (see {@link listTreeFiles}) into sorted entries. */
export async function hashTree(rootDir: string): Promise<Sha256SumsEntry[]> {
  const { files, irregular } = await listTreeFiles(rootDir);
  if (irregular.length > 0) {
    throw new InvalidArgumentError(
      'rootDir',
      `expected only regular files and directories, found ${irregular.map((p) => JSON.stringify(p)).join(', ')}`,
    );
  }
  const entries: Sha256SumsEntry[] = [];
  for (const path of files) entries.push({ path, sha256: await sha256OfFile(join(rootDir, path)) });
  return entries;
}

/**
 * Writes `rootDir/SHA256SUMS` over every other file of the tree and returns the entries.
 * Afterwards `cd rootDir && sha256sum -c SHA256SUMS` succeeds.
 */
export async function writeSha256Sums(rootDir: string): Promise<Sha256SumsEntry[]> {
  const entries = await hashTree(rootDir);
  await writeFile(join(rootDir, SHA256SUMS_FILE), formatSha256Sums(entries));
  return entries;
}

/**
 * Checks `rootDir/SHA256SUMS` against the tree: every listed file must exist with the listed
 * digest, and every file of the tree must be listed. Returns the problems, each naming its file;
 * an empty list means the tree is intact.
 */
export async function checkSha256Sums(rootDir: string): Promise<Sha256SumsProblem[]> {
  let listed: Sha256SumsEntry[];
  try {
    listed = parseSha256Sums(await readFile(join(rootDir, SHA256SUMS_FILE), 'utf8'));
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return [
      {
        path: SHA256SUMS_FILE,
        kind: 'malformed',
        message: `cannot read ${SHA256SUMS_FILE}: ${message}`,
      },
    ];
  }
  const { files, irregular } = await listTreeFiles(rootDir);
  const present = new Set(files);
  const problems: Sha256SumsProblem[] = [];
  for (const entry of listed) {
    if (!present.has(entry.path)) {
      problems.push({
        path: entry.path,
        kind: 'missing',
        message: `${entry.path}: listed in ${SHA256SUMS_FILE} but not present`,
      });
      continue;
    }
    const actual = await sha256OfFile(join(rootDir, entry.path));
    if (actual !== entry.sha256) {
      problems.push({
        path: entry.path,
        kind: 'mismatch',
        message: `${entry.path}: SHA-256 is ${actual}, ${SHA256SUMS_FILE} lists ${entry.sha256}`,
      });
    }
  }
  const listedPaths = new Set(listed.map((entry) => entry.path));
  for (const path of [...files, ...irregular]) {
    if (!listedPaths.has(path)) {
      problems.push({
        path,
        kind: 'unlisted',
        message: `${path}: present in the release but not listed in ${SHA256SUMS_FILE}`,
      });
    }
  }
  return problems.sort((a, b) => compareUtf8(a.path, b.path));
}
