/**
 * A folder made once per vitest run and shared by every test file that asks for it by the same
 * key, in any worker: the offline runs that several files read (the same command, the same
 * options) are made once instead of once per file (docs/benchmarks/ci.md, "Fourth pass").
 *
 * The folder lives in the run's temporary root (`CHI_TEST_TEMP_ROOT`, `temp-dirs-global.ts`),
 * under {@link SHARED_FOLDERS}, named by the SHA-256 of the key; the global teardown removes it
 * with the root. The first caller makes it: it takes a lock (an atomic `mkdir`), calls `make` on
 * the folder (at its final path: a run folder may record where it was made) and then writes a
 * `<name>.done` file beside it, so no caller reads a folder before it is whole. Every other
 * caller, in this process or another worker, waits for that file. A maker that died (its process
 * is gone) leaves its lock behind: the next caller removes the lock and the partial folder and
 * makes it itself. A failed `make` removes the partial folder and the lock, and fails the caller
 * (the next caller tries again and fails the same way, naming its own test).
 *
 * Readers never write into a shared folder: a test that changes a run copies it first.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';

/** The folder of the run's temporary root that holds the shared folders. */
export const SHARED_FOLDERS = 'shared-folders';

/** Where the shared folders of this vitest run live (the machine's temp folder outside vitest). */
function sharedRoot(): string {
  // biome-ignore lint/suspicious/noUndeclaredEnvVars: the test run's temporary folder, not a turbo task input
  const root = process.env.CHI_TEST_TEMP_ROOT ?? tmpdir();
  const folder = join(root, SHARED_FOLDERS);
  mkdirSync(folder, { recursive: true });
  return folder;
}

/** Whether the process that wrote `lock/pid` is gone (a maker that died mid-way). */
function makerGone(lock: string): boolean {
  let pid: number;
  try {
    pid = Number(readFileSync(join(lock, 'pid'), 'utf8'));
  } catch {
    return false; // the lock was just taken and its pid is not written yet, or it was released
  }
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/**
 * The shared folder for `key`, made by `make(folder)` the first time any test file of this vitest
 * run asks for it. `make` writes into the empty folder it is given and resolves when the folder is
 * whole. Returns the folder's path.
 */
export async function sharedFolder(
  key: string,
  make: (folder: string) => Promise<void>,
): Promise<string> {
  const root = sharedRoot();
  const name = createHash('sha256').update(key).digest('hex').slice(0, 16);
  const folder = join(root, name);
  const lock = join(root, `${name}.lock`);
  const done = join(root, `${name}.done`);
  for (;;) {
    if (existsSync(done)) return folder;
    try {
      mkdirSync(lock);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      if (makerGone(lock)) rmSync(lock, { recursive: true, force: true });
      else await delay(100); // another file makes it: wait for its done file, whatever it takes
      continue;
    }
    try {
      writeFileSync(join(lock, 'pid'), String(process.pid));
      if (existsSync(done)) return folder; // made between the check above and the lock
      rmSync(folder, { recursive: true, force: true }); // a dead maker's partial folder
      mkdirSync(folder);
      try {
        await make(folder);
      } catch (error) {
        rmSync(folder, { recursive: true, force: true });
        throw error;
      }
      writeFileSync(done, `${key}\n`);
      return folder;
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  }
}
