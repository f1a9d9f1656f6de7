import { createHash, type Hash } from 'node:crypto';
import { closeSync, mkdirSync, openSync, writeFileSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { findSecrets, JsonlSecretScan, type SecretFinding } from './secrets';

/**
 * Where the derived files of a release go as they are produced (`buildDerivedRelease` holds them
 * in memory; `writeRelease` and `verifyRelease` put them on disk, so a long run's derived files
 * never sit in memory together).
 */
export interface DerivedOutput {
  /** A whole derived file; a later call for the same path replaces it. */
  file(path: string, text: string): void;
  /**
   * One `\n`-terminated line (a JSONL line, a CSV row) appended to a file written line by line:
   * the first starts the file (replacing a whole file given before), each next one extends it.
   */
  appendLine(path: string, line: string): void;
}

/** What {@link DerivedFilesOnDisk} wrote for one file. */
export interface WrittenDerivedFile {
  /** SHA-256 (lowercase hex) of the bytes written. */
  readonly sha256: string;
  /** What the secret scan found in it (always empty without a scan). */
  readonly findings: readonly SecretFinding[];
}

/** Bytes a line-by-line file gathers before one write. */
const APPEND_BYTES = 64 * 1024;

/** A file written line by line: open from its first line, hashed and scanned as it goes. */
class LineFile {
  readonly #fd: number;
  readonly #hash: Hash = createHash('sha256');
  readonly #scan: JsonlSecretScan | null;
  /** Whether a line's JSON value is scanned too (a JSONL file), as `findSecrets` does. */
  readonly #jsonl: boolean;
  #pending: Buffer[] = [];
  #pendingBytes = 0;

  constructor(target: string, scan: JsonlSecretScan | null) {
    mkdirSync(dirname(target), { recursive: true });
    this.#fd = openSync(target, 'w');
    this.#scan = scan;
    this.#jsonl = target.endsWith('.jsonl');
  }

  append(line: string): void {
    // scanned like a whole JSONL file: every non-blank line with its value (undefined unparsed)
    if (this.#scan !== null)
      for (const text of line.split('\n')) {
        if (text.trim() !== '')
          this.#scan.line(text, this.#jsonl ? parsedOrUndefined(text) : undefined);
      }
    const bytes = Buffer.from(line, 'utf8');
    this.#pending.push(bytes);
    this.#pendingBytes += bytes.length;
    if (this.#pendingBytes >= APPEND_BYTES) this.#flush();
  }

  #flush(): void {
    if (this.#pendingBytes === 0) return;
    const bytes = Buffer.concat(this.#pending);
    this.#pending = [];
    this.#pendingBytes = 0;
    writeAll(this.#fd, bytes);
    this.#hash.update(bytes);
  }

  /** Writes what is gathered, closes the file and says what was written. */
  finish(): WrittenDerivedFile {
    try {
      this.#flush();
    } finally {
      closeSync(this.#fd);
    }
    return { sha256: this.#hash.digest('hex'), findings: this.#scan?.findings() ?? [] };
  }

  /** Closes the file without writing what is gathered (after an error). */
  abandon(): void {
    closeSync(this.#fd);
  }
}

function parsedOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function writeAll(fd: number, bytes: Buffer): void {
  let offset = 0;
  while (offset < bytes.length) offset += writeSync(fd, bytes, offset, bytes.length - offset);
}

/**
 * The derived files written into a folder as they are produced: a whole file at once, a trace
 * file line by line (64 KiB per write). Each file is hashed from the bytes written and, when
 * `forbidden` is given, scanned for secrets as `writeRelease` scans a release file, so neither
 * needs the file again. Call {@link finish} once everything is produced (or {@link abandon} after
 * an error, to close the files still open).
 */
export class DerivedFilesOnDisk implements DerivedOutput {
  readonly #dir: string;
  readonly #forbidden: readonly string[] | null;
  readonly #whole = new Map<string, WrittenDerivedFile>();
  readonly #lines = new Map<string, LineFile>();

  /**
   * @param dir - the folder the files go into (created as needed).
   * @param forbidden - strings no file may hold: scan every file for secrets with them; `null`
   *   skips the scan (`chi verify` only compares).
   */
  constructor(dir: string, forbidden: readonly string[] | null) {
    this.#dir = dir;
    this.#forbidden = forbidden;
  }

  file(path: string, text: string): void {
    this.#lines.get(path)?.abandon();
    this.#lines.delete(path);
    const target = join(this.#dir, path);
    const bytes = Buffer.from(text, 'utf8');
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, bytes);
    this.#whole.set(path, {
      sha256: createHash('sha256').update(bytes).digest('hex'),
      findings: this.#forbidden === null ? [] : findSecrets(path, text, this.#forbidden),
    });
  }

  appendLine(path: string, line: string): void {
    let file = this.#lines.get(path);
    if (file === undefined) {
      this.#whole.delete(path);
      const scan = this.#forbidden === null ? null : new JsonlSecretScan(path, this.#forbidden);
      file = new LineFile(join(this.#dir, path), scan);
      this.#lines.set(path, file);
    }
    file.append(line);
  }

  /** Closes every file written line by line; path -> what was written, for every file. */
  finish(): Map<string, WrittenDerivedFile> {
    const written = new Map(this.#whole);
    try {
      for (const [path, file] of this.#lines) {
        this.#lines.delete(path);
        written.set(path, file.finish());
      }
    } finally {
      this.abandon();
    }
    return written;
  }

  /** Closes the files still open, writing nothing more. */
  abandon(): void {
    for (const file of this.#lines.values()) file.abandon();
    this.#lines.clear();
  }
}
