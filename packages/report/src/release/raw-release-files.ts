import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { link, mkdir, open, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { fileLines } from '@chi/run/internal';
import { InvalidArgumentError } from '@chi/spec';
import { canonicalJson, sha256Hex } from '../canonical-json';
import { findSecrets, JsonlSecretScan, type SecretFinding } from './secrets';

/**
 * The raw run files of a release (the attempt log, worlds, payloads, manifest...): each read from
 * the run folder, scanned for secrets, written into the staging folder and hashed, one at a time.
 * They are independent of the derived files, so `writeRelease` copies them on a worker thread
 * (`release-workers.ts`) while the main thread scores the run; this module imports nothing of the
 * scoring, the analysis or the figures, so that worker starts small.
 */

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
 * A raw JSONL run file (the attempt log, the ledger...), never held: read from the run folder
 * line by line twice, once to scan its canonical lines for secrets and once to write them, so
 * memory does not grow with the log.
 */
interface StreamedJsonlFile {
  readonly lines: () => AsyncIterable<string>;
}

/**
 * A JSONL run file published byte for byte (a release kind's `rawCopy: 'verbatim'`): streamed
 * from `file` to scan it line by line and again to copy it, so a release of many worlds never
 * holds its attempt log whole.
 */
interface VerbatimJsonlFile {
  readonly file: string;
}

/** One raw run file as it is published. */
type RawContent = PublishedFile | GzipRunFile | StreamedJsonlFile | VerbatimJsonlFile;

/**
 * One raw run file, as published: gzip files byte for byte, JSON re-serialized as RFC 8785, JSONL
 * line by line (a torn last line dropped), anything else as it is; with `verbatim` (a release
 * kind's `rawCopy`), every file byte for byte (scanned all the same). Read one file at a time, so
 * the run never sits in memory.
 */
async function publishedRawFile(
  runDir: string,
  path: string,
  verbatim: boolean,
): Promise<RawContent> {
  if (path.endsWith('.gz')) {
    const linkFrom = join(runDir, path);
    return { gzip: new Uint8Array(await readFile(linkFrom)), linkFrom };
  }
  if (verbatim && path.endsWith('.jsonl')) return { file: join(runDir, path) };
  if (verbatim) return { text: await readFile(join(runDir, path), 'utf8') };
  if (path.endsWith('.jsonl')) return { lines: () => canonicalJsonLines(join(runDir, path), path) };
  const text = await readFile(join(runDir, path), 'utf8');
  if (path.endsWith('.json')) {
    const value = JSON.parse(text) as unknown;
    return { text: canonicalJson(value, path), values: [value] };
  }
  return { text };
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
 * The secrets a verbatim JSONL file would publish, one line at a time: the findings of
 * `findSecrets` over its whole text (blank lines skipped, a line that does not parse scanned as
 * text only), as `JsonlSecretScan` promises.
 */
async function scanVerbatimLines(
  path: string,
  file: string,
  forbidden: readonly string[],
): Promise<readonly SecretFinding[]> {
  const scan = new JsonlSecretScan(path, forbidden);
  for await (const line of fileLines(file)) {
    if (line.text.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line.text) as unknown;
    } catch {
      value = undefined;
    }
    scan.line(line.text, value);
  }
  return scan.findings();
}

/** The secrets one raw file would publish; a gzip run file is scanned decompressed. */
async function scanRaw(
  path: string,
  content: RawContent,
  forbidden: readonly string[],
): Promise<readonly SecretFinding[]> {
  if ('lines' in content) return scanStreamed(path, content, forbidden);
  if ('file' in content) return scanVerbatimLines(path, content.file, forbidden);
  if ('gzip' in content) {
    const text = gunzipSync(content.gzip).toString('utf8');
    return findSecrets(path.slice(0, -'.gz'.length), text, forbidden).map((finding) => ({
      ...finding,
      path,
    }));
  }
  return findSecrets(path, content.text, forbidden, content.values);
}

/**
 * Writes one raw file and returns the SHA-256 of its bytes. A gzip run file is hard-linked to the
 * run folder's copy when it can be (same file system): its bytes are identical and never
 * rewritten, so a release inside its run folder does not store them twice. Otherwise the same
 * bytes are written.
 */
async function writeRaw(target: string, content: RawContent): Promise<string> {
  if ('lines' in content) return writeChunks(target, batchedLines(content.lines()));
  if ('file' in content)
    return writeChunks(target, createReadStream(content.file) as AsyncIterable<Buffer>);
  if ('gzip' in content) {
    try {
      await link(content.linkFrom, target);
      return sha256Hex(content.gzip);
    } catch {
      // another file system or no hard links: fall back to a copy of the same bytes
    }
    await writeFile(target, content.gzip);
    return sha256Hex(content.gzip);
  }
  const bytes = Buffer.from(content.text, 'utf8');
  await writeFile(target, bytes);
  return sha256Hex(bytes);
}

/** What {@link writeRawReleaseFiles} was asked to do. */
export interface RawFilesTask {
  /** The run folder (absolute). */
  readonly runDir: string;
  /** The staging folder the release is built in (absolute). */
  readonly staging: string;
  /** The raw paths to publish, relative, in the order to publish them. */
  readonly paths: readonly string[];
  /** Strings no published file may hold. */
  readonly forbidden: readonly string[];
  /** Publish every file byte for byte, JSON and JSONL too (a release kind's `rawCopy`). */
  readonly verbatim?: boolean;
}

/** One raw file of {@link writeRawReleaseFiles}: its hash, or null when it was not written. */
export interface RawFileWritten {
  readonly path: string;
  readonly sha256: string | null;
  readonly findings: readonly SecretFinding[];
}

/**
 * Publishes the raw files of a release into its staging folder in the given order: each is read,
 * scanned for secrets and (while none has been found) written and hashed from the bytes written.
 * Every file is scanned, so the findings are the same whichever files come first. The next file
 * is read while the current one is written. A file that cannot be read or parsed rejects, naming it.
 */
export async function writeRawReleaseFiles(task: RawFilesTask): Promise<RawFileWritten[]> {
  const out: RawFileWritten[] = [];
  const folders = new Set<string>();
  let found = false;
  const produce = (index: number): Promise<RawContent> | null => {
    const path = task.paths[index];
    if (path === undefined) return null;
    const content = publishedRawFile(task.runDir, path, task.verbatim ?? false);
    // read ahead; a failure surfaces when this file's turn comes, not as an unhandled rejection
    content.catch(() => {});
    return content;
  };
  let next = produce(0);
  for (let index = 0; index < task.paths.length; index++) {
    const path = task.paths[index] as string;
    const content = await (next as Promise<RawContent>);
    next = produce(index + 1);
    const findings = await scanRaw(path, content, task.forbidden);
    found ||= findings.length > 0;
    if (found) {
      out.push({ path, sha256: null, findings });
      continue;
    }
    const folder = dirname(join(task.staging, path));
    if (!folders.has(folder)) {
      await mkdir(folder, { recursive: true });
      folders.add(folder);
    }
    out.push({ path, sha256: await writeRaw(join(task.staging, path), content), findings });
  }
  return out;
}
