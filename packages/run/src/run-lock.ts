import {
  closeSync,
  linkSync,
  openSync,
  readFileSync,
  renameSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { RunFolderLockedError, type RunFolderLockHolder } from '@chi/spec';

/** The relative path of a run folder's lock file (`RUN_FILES` entry `lock`). */
export const RUN_LOCK_FILE = 'run.lock';

/** What a lock file records about its holder. */
export interface RunLockOwner extends RunFolderLockHolder {
  readonly kind: 'chi-run-lock';
  /**
   * The holder's start time as `/proc/<pid>/stat` field 22 (clock ticks since boot), or null
   * where `/proc` is not available: with it a reused PID is told from the holder.
   */
  readonly processStart: string | null;
}

/** How a lock's owner is judged; injectable so tests need no real processes of other hosts. */
export interface ProcessProbe {
  /** This machine's host name. */
  readonly host: string;
  /** Whether a process with this PID exists on this host. */
  isAlive(pid: number): boolean;
  /** The start time of a live process (see {@link RunLockOwner.processStart}), or null. */
  startTime(pid: number): string | null;
}

/** A lock held by this process: release it once, when the command ends. */
export interface RunLock {
  /** The lock file. */
  readonly path: string;
  /** What the file records. */
  readonly owner: RunLockOwner;
  /** True when the lock was taken over from a holder that is provably gone. */
  readonly tookOverFrom: RunLockOwner | null;
  /** Removes the lock file if it is still this process's (idempotent, synchronous). */
  release(): void;
}

/** Options of {@link acquireRunLock}. */
export interface AcquireRunLockOptions {
  /** What holds the lock, shown to a second writer (for example `chi pilot --resume`). */
  readonly command: string;
  readonly now?: () => Date;
  readonly probe?: ProcessProbe;
}

/** `/proc/<pid>/stat` field 22 (the process start time), or null where it cannot be read. */
function procStartTime(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (field 2, in parentheses, may itself hold spaces).
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return rest[19] ?? null;
  } catch {
    return null;
  }
}

/** The probe of this machine's processes (signal 0 and `/proc`). */
export const LOCAL_PROCESS_PROBE: ProcessProbe = {
  host: hostname(),
  isAlive(pid) {
    try {
      process.kill(pid, 0);
      return true;
    } catch (error) {
      // EPERM: it exists but belongs to another user.
      return (error as { code?: unknown }).code === 'EPERM';
    }
  },
  startTime: procStartTime,
};

function parseOwner(text: string): RunLockOwner | null {
  try {
    const value = JSON.parse(text) as Partial<RunLockOwner>;
    if (
      value.kind !== 'chi-run-lock' ||
      typeof value.pid !== 'number' ||
      typeof value.host !== 'string' ||
      typeof value.since !== 'string'
    )
      return null;
    return {
      kind: 'chi-run-lock',
      pid: value.pid,
      host: value.host,
      since: value.since,
      command: typeof value.command === 'string' ? value.command : 'unknown',
      processStart: typeof value.processStart === 'string' ? value.processStart : null,
    };
  } catch {
    return null;
  }
}

function readOwner(path: string): { text: string; owner: RunLockOwner | null } | null {
  try {
    const text = readFileSync(path, 'utf8');
    return { text, owner: parseOwner(text) };
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ENOENT') return null;
    throw error;
  }
}

/**
 * Whether the owner is provably gone: on this host, and its PID is not alive, or is alive with
 * another start time (the PID was reused). Never for another host, whose processes this one
 * cannot see.
 */
export function isProvablyGone(owner: RunLockOwner, probe: ProcessProbe): boolean {
  if (owner.host !== probe.host) return false;
  if (!probe.isAlive(owner.pid)) return true;
  if (owner.processStart === null) return false;
  const current = probe.startTime(owner.pid);
  return current !== null && current !== owner.processStart;
}

function heldMessage(path: string, owner: RunLockOwner | null, probe: ProcessProbe): string {
  if (owner === null)
    return `the run folder is locked by ${path}, which cannot be read as a lock; if no chi command is writing this folder, remove ${path} and run the command again`;
  const holder = `${owner.command} (PID ${owner.pid} on host ${owner.host}, since ${owner.since})`;
  if (owner.host !== probe.host)
    return `the run folder is in use by ${holder}, on another host whose processes cannot be checked from ${probe.host}; if that process is gone, remove ${path} and run the command again`;
  return `the run folder is in use by ${holder}; wait for it to end (only one command may write a run folder at a time)`;
}

function createLockFile(path: string, owner: RunLockOwner): boolean {
  let fd: number;
  try {
    fd = openSync(path, 'wx');
  } catch (error) {
    if ((error as { code?: unknown }).code === 'EEXIST') return false;
    throw error;
  }
  try {
    writeSync(fd, `${JSON.stringify(owner)}\n`);
  } finally {
    closeSync(fd);
  }
  return true;
}

/**
 * Moves a stale lock aside, only if it is still the file judged stale: the rename is atomic, and
 * when another process replaced the lock in the meantime its file is linked back (a link never
 * replaces an existing file). True when the stale lock is gone.
 */
function removeStaleLock(path: string, staleText: string): boolean {
  const aside = `${path}.stale-${process.pid}`;
  try {
    renameSync(path, aside);
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ENOENT') return true;
    throw error;
  }
  const movedText = readFileSync(aside, 'utf8');
  if (movedText !== staleText) {
    try {
      linkSync(aside, path);
    } catch {
      // a third writer holds the lock now; either way this process does not
    }
    unlinkSync(aside);
    return false;
  }
  unlinkSync(aside);
  return true;
}

/**
 * Takes the exclusive write lock of a run folder: `run.lock`, created atomically (`O_EXCL`), holding
 * this process's PID, host, start time and command. A lock whose holder is provably gone (same
 * host, and the PID dead or reused) is taken over; any other existing lock is refused with
 * {@link RunFolderLockedError} naming its holder. The lock is released by `release()` and, should
 * the process exit without it, by an exit handler; a crash (kill -9) leaves a stale lock that the
 * next writer takes over.
 *
 * @example
 * ```ts
 * const lock = acquireRunLock(runDir, { command: 'chi score' });
 * try { await writeSomething(runDir); } finally { lock.release(); }
 * ```
 */
export function acquireRunLock(runDir: string, options: AcquireRunLockOptions): RunLock {
  const path = join(runDir, RUN_LOCK_FILE);
  const probe = options.probe ?? LOCAL_PROCESS_PROBE;
  const owner: RunLockOwner = {
    kind: 'chi-run-lock',
    pid: process.pid,
    host: probe.host,
    since: (options.now ?? (() => new Date()))().toISOString(),
    command: options.command,
    processStart: probe.startTime(process.pid),
  };
  let tookOverFrom: RunLockOwner | null = null;
  // Two rounds: the second follows the removal of a stale lock.
  for (let round = 0; round < 2; round += 1) {
    if (createLockFile(path, owner)) return heldLock(path, owner, tookOverFrom);
    const existing = readOwner(path);
    if (existing === null) continue;
    if (existing.owner === null || !isProvablyGone(existing.owner, probe))
      throw new RunFolderLockedError(
        path,
        existing.owner,
        heldMessage(path, existing.owner, probe),
      );
    if (!removeStaleLock(path, existing.text)) break;
    tookOverFrom = existing.owner;
  }
  const now = readOwner(path)?.owner ?? null;
  throw new RunFolderLockedError(path, now, heldMessage(path, now, probe));
}

function heldLock(path: string, owner: RunLockOwner, tookOverFrom: RunLockOwner | null): RunLock {
  const ownText = `${JSON.stringify(owner)}\n`;
  let released = false;
  const release = (): void => {
    if (released) return;
    released = true;
    process.removeListener('exit', release);
    try {
      // Only this process's own lock: never one a later writer took over.
      if (readFileSync(path, 'utf8') === ownText) unlinkSync(path);
    } catch {
      // already gone (the folder was removed): nothing to release
    }
  };
  process.on('exit', release);
  return { path, owner, tookOverFrom, release };
}
