import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { RunFolderLockedError } from '@chi/spec';
import { afterAll, describe, expect, it } from 'vitest';
import {
  acquireRunLock,
  LOCAL_PROCESS_PROBE,
  type ProcessProbe,
  RUN_LOCK_FILE,
  type RunLockOwner,
} from './run-lock';

const scratch = mkdtempSync(join(tmpdir(), 'chi-run-lock-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function folder(): string {
  return mkdtempSync(join(scratch, 'run-'));
}

function writeLock(dir: string, owner: Partial<RunLockOwner>): void {
  const full: RunLockOwner = {
    kind: 'chi-run-lock',
    pid: 1,
    host: hostname(),
    since: '2026-12-03T10:00:00.000Z',
    command: 'chi pilot --resume',
    processStart: null,
    ...owner,
  };
  writeFileSync(join(dir, RUN_LOCK_FILE), `${JSON.stringify(full)}\n`);
}

/** The PID of a process that has exited (a real one, so no probe is faked). */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  return Number(child.stdout.toString('utf8'));
}

function lockError(run: () => unknown): RunFolderLockedError {
  try {
    run();
  } catch (error) {
    if (RunFolderLockedError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected RunFolderLockedError');
}

describe('acquireRunLock', () => {
  it('creates run.lock with PID, host, start time and command, and removes it on release', () => {
    const dir = folder();
    const lock = acquireRunLock(dir, { command: 'chi score' });
    const recorded = JSON.parse(readFileSync(join(dir, RUN_LOCK_FILE), 'utf8')) as RunLockOwner;
    expect(recorded).toMatchObject({ pid: process.pid, host: hostname(), command: 'chi score' });
    expect(recorded.processStart).toBe(LOCAL_PROCESS_PROBE.startTime(process.pid));
    lock.release();
    lock.release();
    expect(existsSync(join(dir, RUN_LOCK_FILE))).toBe(false);
  });

  it('refuses a second writer while the first holds the lock, naming the holder', () => {
    const dir = folder();
    const lock = acquireRunLock(dir, { command: 'chi pilot --resume' });
    const error = lockError(() => acquireRunLock(dir, { command: 'chi score' }));
    expect(error.message).toContain(
      `in use by chi pilot --resume (PID ${process.pid} on host ${hostname()}, since ${lock.owner.since})`,
    );
    expect(error.holder?.pid).toBe(process.pid);
    lock.release();
    acquireRunLock(dir, { command: 'chi score' }).release();
  });

  it('takes over a lock whose PID is dead on this host', () => {
    const dir = folder();
    const pid = deadPid();
    writeLock(dir, { pid });
    const lock = acquireRunLock(dir, { command: 'chi pilot --resume' });
    expect(lock.tookOverFrom?.pid).toBe(pid);
    expect(lock.owner.pid).toBe(process.pid);
    lock.release();
  });

  it('takes over a lock whose PID is alive but started at another time (a reused PID)', () => {
    const dir = folder();
    writeLock(dir, { pid: process.pid, processStart: '1' });
    const lock = acquireRunLock(dir, { command: 'chi pilot --resume' });
    expect(lock.tookOverFrom?.processStart).toBe('1');
    lock.release();
  });

  it('never takes over a lock of another host: refused, with how to remove it', () => {
    const dir = folder();
    writeLock(dir, { pid: deadPid(), host: 'other-machine' });
    const error = lockError(() => acquireRunLock(dir, { command: 'chi score' }));
    expect(error.message).toContain('on host other-machine');
    expect(error.message).toContain(`remove ${join(dir, RUN_LOCK_FILE)}`);
    expect(existsSync(join(dir, RUN_LOCK_FILE))).toBe(true);
  });

  it('refuses a lock file it cannot read as a lock, naming it', () => {
    const dir = folder();
    writeFileSync(join(dir, RUN_LOCK_FILE), 'not json');
    expect(lockError(() => acquireRunLock(dir, { command: 'chi score' })).message).toContain(
      `remove ${join(dir, RUN_LOCK_FILE)}`,
    );
  });

  it('keeps a live holder whose start time is unknown (no /proc)', () => {
    const dir = folder();
    const probe: ProcessProbe = { host: 'h', isAlive: () => true, startTime: () => null };
    writeLock(dir, { pid: 4242, host: 'h' });
    expect(lockError(() => acquireRunLock(dir, { command: 'chi score', probe })).holder?.pid).toBe(
      4242,
    );
  });

  it('release leaves a lock another writer took over', () => {
    const dir = folder();
    const lock = acquireRunLock(dir, { command: 'chi score' });
    writeLock(dir, { pid: 4242, command: 'chi pilot --resume' });
    lock.release();
    expect(existsSync(join(dir, RUN_LOCK_FILE))).toBe(true);
  });
});
