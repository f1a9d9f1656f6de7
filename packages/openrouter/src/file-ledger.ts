import { type FileHandle, mkdir, open, readFile, truncate } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { ChiError, formatIssues, InvalidArgumentError, type LedgerEntry } from '@chi/spec';
import { LedgerEntrySchema } from '@chi/spec/internal';
import { applyEntry, emptyBook, type LedgerBook, toNanos } from './ledger-book';
import {
  createLedgerCore,
  type InspectableLedger,
  type LedgerJournal,
  type LedgerOptions,
} from './ledger-core';

/** A ledger file cannot be used as it is: names the file, the 1-based line and the problem. */
export class LedgerFileError extends ChiError {
  /** The ledger file. */
  readonly path: string;
  /** 1-based line number of the problem; null when it concerns the whole file. */
  readonly line: number | null;

  constructor(path: string, line: number | null, problem: string, options?: { cause?: unknown }) {
    super(`ledger file ${path}${line === null ? '' : ` line ${line}`}: ${problem}`, options);
    this.name = 'LedgerFileError';
    this.path = path;
    this.line = line;
  }

  /** True for this error from any copy of the package. */
  static override isInstance(error: unknown): error is LedgerFileError {
    return ChiError.isInstance(error) && error.name === 'LedgerFileError';
  }
}

/** Options of {@link createFileLedger}. */
export interface FileLedgerOptions extends LedgerOptions {
  /** The JSONL file; created (with its folder) when missing. One process per file. */
  readonly path: string;
  /**
   * The USD ceiling. Required for a new file; for an existing file it may be omitted (the
   * recorded ceiling applies) and, when given, must equal the recorded one.
   */
  readonly ceilingUsd?: number;
  /**
   * Drop an incomplete last line left by a crash, and report it in {@link LedgerRecovery}.
   * Default false: opening such a file fails with a {@link LedgerFileError} that says so.
   */
  readonly repairTornTail?: boolean;
}

/** What reopening a ledger file found and repaired. */
export interface LedgerRecovery {
  /** The incomplete last line that was dropped (1-based line, byte length); null when none. */
  readonly tornTail: { readonly line: number; readonly bytes: number } | null;
  /** Reservations that were still open (their process stopped mid-attempt): now retained. */
  readonly retainedOrphans: readonly string[];
}

/** The crash-safe ledger: a {@link InspectableLedger} backed by an append-only JSONL file. */
export interface FileLedger extends InspectableLedger {
  /** Absolute path of the ledger file. */
  readonly path: string;
  /** What opening the file found and repaired. */
  readonly recovery: LedgerRecovery;
  /** Closes the file; later operations reject. */
  close(): Promise<void>;
}

const openPaths = new Set<string>();

function parseLines(path: string, text: string, book: LedgerBook, entries: LedgerEntry[]): void {
  const lines = text.split('\n');
  lines.pop(); // text ends with '\n': the last split element is empty
  for (const [index, line] of lines.entries()) {
    const lineNumber = index + 1;
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch {
      throw new LedgerFileError(
        path,
        lineNumber,
        `not valid JSON (${Buffer.byteLength(line)} bytes); a complete line is never torn, so the file was altered`,
      );
    }
    const parsed = LedgerEntrySchema.safeParse(raw);
    if (!parsed.success) {
      const issues = formatIssues(parsed.error.issues).map(
        (issue) => `${issue.path === '' ? '(root)' : issue.path}: ${issue.message}`,
      );
      throw new LedgerFileError(path, lineNumber, `not a ledger entry: ${issues.join('; ')}`);
    }
    const problem = applyEntry(book, parsed.data);
    if (problem !== null) throw new LedgerFileError(path, lineNumber, problem);
    entries.push(parsed.data);
  }
}

async function syncFolder(folder: string): Promise<void> {
  // Makes a newly created file's directory entry durable. Some platforms cannot open folders.
  let handle: FileHandle | undefined;
  try {
    handle = await open(folder, 'r');
    await handle.sync();
  } catch {
    // best effort
  } finally {
    await handle?.close();
  }
}

/** The ledger file's text (empty when absent), without a torn last line when repairing one. */
async function readLedgerText(
  path: string,
  repairTornTail: boolean,
): Promise<{ text: string; tornTail: LedgerRecovery['tornTail'] }> {
  let text = '';
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'ENOENT') throw error;
  }
  const lastNewline = text.lastIndexOf('\n');
  if (text.length <= lastNewline + 1) return { text, tornTail: null };
  const line = text.slice(0, lastNewline + 1).split('\n').length;
  const bytes = Buffer.byteLength(text.slice(lastNewline + 1));
  if (!repairTornTail) {
    throw new LedgerFileError(
      path,
      line,
      `incomplete last line (${bytes} bytes without a final newline): the process probably stopped while writing it; nothing it describes took effect. Reopen with repairTornTail: true to drop it (it is reported in ledger.recovery)`,
    );
  }
  return { text: text.slice(0, lastNewline + 1), tornTail: { line, bytes } };
}

/** A new file needs a ceiling; an existing one keeps the ceiling it records. */
function checkLedgerCeiling(
  path: string,
  ceilingUsd: number | undefined,
  book: LedgerBook,
  isNew: boolean,
): void {
  if (isNew && ceilingUsd === undefined) {
    throw new InvalidArgumentError(
      'ceilingUsd',
      `required to create the new ledger file ${path}, found none`,
    );
  }
  if (!isNew && ceilingUsd !== undefined && toNanos(ceilingUsd) !== book.ceilingNanos) {
    throw new InvalidArgumentError(
      'ceilingUsd',
      `the ledger file ${path} records a ceiling of ${(book.ceilingNanos ?? 0) / 1e9} USD, found ${ceilingUsd} USD; a run's ceiling is fixed`,
    );
  }
}

/**
 * The journal of a ledger file with group commit: entries booked while a write+fsync is in
 * flight go out together in the next one, so concurrent requests share fsyncs instead of queueing
 * behind each other's. After a failed write every later entry fails with the same error.
 */
function groupCommitJournal(
  handle: FileHandle,
  path: string,
  status: { readonly closed: boolean },
): { journal: LedgerJournal; flushed: () => Promise<void> } {
  let queue: { line: string; resolve: () => void; reject: (error: unknown) => void }[] = [];
  let flushing: Promise<void> | null = null;
  let failed: unknown = null;
  async function drain(): Promise<void> {
    while (queue.length > 0) {
      const batch = queue;
      queue = [];
      const text = batch.map((item) => item.line).join('');
      try {
        if (failed !== null) throw failed;
        const { bytesWritten } = await handle.write(text);
        if (bytesWritten !== Buffer.byteLength(text)) {
          throw new LedgerFileError(
            path,
            null,
            `short write: ${bytesWritten} of ${Buffer.byteLength(text)} bytes`,
          );
        }
        await handle.sync();
        for (const item of batch) item.resolve();
      } catch (error) {
        failed ??= error;
        for (const item of batch) item.reject(error);
      }
    }
    flushing = null;
  }
  const journal = {
    check(): void {
      if (status.closed) throw new LedgerFileError(path, null, 'the ledger is closed');
    },
    append(entry: LedgerEntry): Promise<void> {
      return new Promise<void>((resolve, reject) => {
        queue.push({ line: `${JSON.stringify(entry)}\n`, resolve, reject });
        flushing ??= drain();
      });
    },
  };
  return { journal, flushed: async () => flushing ?? undefined };
}

/** The ceiling asked for is a USD amount, and this process has not opened the file already. */
function checkOpenable(path: string, ceilingUsd: number | undefined): void {
  if (ceilingUsd !== undefined && (!Number.isFinite(ceilingUsd) || ceilingUsd < 0)) {
    throw new InvalidArgumentError(
      'ceilingUsd',
      `expected a finite USD amount >= 0, found ${ceilingUsd}`,
    );
  }
  if (openPaths.has(path))
    throw new LedgerFileError(path, null, 'already open in this process; close it first');
}

/** The first entry of a new ledger file, durable with its folder entry before anything else. */
async function writeOpenEntry(
  path: string,
  journal: LedgerJournal,
  book: LedgerBook,
  entries: LedgerEntry[],
  options: FileLedgerOptions,
): Promise<void> {
  const open: LedgerEntry = {
    kind: 'open',
    seq: 0,
    at: (options.now ?? (() => new Date()))().toISOString(),
    ceilingUsd: options.ceilingUsd ?? 0,
  };
  await journal.append(open);
  applyEntry(book, open);
  entries.push(open);
  await syncFolder(dirname(path));
}

/**
 * Opens (or creates) a crash-safe budget ledger: an append-only JSONL file of `LedgerEntry`
 * lines. Each entry is written and fsynced before its operation resolves, so a request is sent
 * only after its reservation is on disk. Reopening folds the entries back into the same state;
 * reservations still open from a process that stopped mid-attempt are retained (their outcome is
 * unknown). An incomplete last line from a crash is detected and reported, never merged: opening
 * fails unless `repairTornTail` is set, which drops it and records that in `recovery`. Nothing the
 * torn line described was acted on, because its operation never resolved.
 *
 * @throws {@link LedgerFileError} for a torn tail (without `repairTornTail`), an altered line or
 * a file already open in this process; `InvalidArgumentError` for a missing or different ceiling.
 *
 * @example
 * ```ts
 * const ledger = await createFileLedger({ path: 'runs/2026-09/ledger.jsonl', ceilingUsd: 40 });
 * try {
 *   // ... createOpenRouterModel({ ledger, ... }) ...
 * } finally {
 *   await ledger.close();
 * }
 * ```
 */
export async function createFileLedger(options: FileLedgerOptions): Promise<FileLedger> {
  const path = resolve(options.path);
  checkOpenable(path, options.ceilingUsd);

  const { text, tornTail } = await readLedgerText(path, options.repairTornTail === true);
  const book = emptyBook();
  const entries: LedgerEntry[] = [];
  parseLines(path, text, book, entries);
  const isNew = entries.length === 0;
  checkLedgerCeiling(path, options.ceilingUsd, book, isNew);

  // The file is touched only once everything else in it has been checked.
  if (tornTail !== null) await truncate(path, Buffer.byteLength(text));
  await mkdir(dirname(path), { recursive: true });
  const handle = await open(path, 'a');
  if (tornTail !== null) await handle.sync();
  openPaths.add(path);
  const status = { closed: false };
  const { journal, flushed } = groupCommitJournal(handle, path, status);

  try {
    if (isNew) await writeOpenEntry(path, journal, book, entries, options);
  } catch (error) {
    openPaths.delete(path);
    await handle.close();
    throw error;
  }

  const core = createLedgerCore(book, entries, journal, options);
  const orphans = [...book.open.keys()];
  for (const reservationId of orphans) {
    await core.retain(
      reservationId,
      'still open when the ledger was reopened: the outcome of its attempt is unknown',
    );
  }

  return {
    ...core,
    path,
    recovery: { tornTail, retainedOrphans: orphans },
    async close() {
      if (status.closed) return;
      status.closed = true;
      // Let entries already booked reach the disk before the handle goes away.
      await flushed();
      openPaths.delete(path);
      await handle.close();
    },
  };
}
