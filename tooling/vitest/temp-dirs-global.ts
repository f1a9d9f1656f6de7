/**
 * Vitest global setup: every test run gets its own temporary root, and leaves it empty.
 *
 * Setup creates a fresh folder `chi-vitest-XXXXXX` in the machine's temporary folder and points
 * `TMPDIR` at it before any worker starts, so every `os.tmpdir()` of a test, and of every child
 * process a test starts with the inherited environment, lands inside it. Each test file then gets
 * its own subfolder (`temp-dirs-file.ts`), which names the file that leaks. Teardown removes the
 * root and fails the run when anything but an empty per-file folder is left in it (an empty one is
 * what a file that failed to load leaves), or the run's shared folders (`shared-folder.ts`: runs
 * made once and read by several files, which belong to the run, not to a file). Other processes' temporary folders never enter the
 * check: they are not inside this run's root.
 */
import { mkdtempSync, readdirSync, rmdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SHARED_FOLDERS } from './shared-folder.ts';

/** The environment variable that carries this run's temporary root to the workers. */
export const TEMP_ROOT_VARIABLE = 'CHI_TEST_TEMP_ROOT';

/**
 * Creates the run's temporary root and returns the teardown that checks and removes it. Every
 * project inherits this global setup and vitest runs it once per project, all before the first
 * test: the first call creates the root, the others find it in the environment and do nothing.
 */
export default function setup(): (() => void) | undefined {
  if (process.env[TEMP_ROOT_VARIABLE] !== undefined) return undefined;
  // biome-ignore lint/suspicious/noUndeclaredEnvVars: the test run's temporary folder, not a turbo task input
  const previous = process.env.TMPDIR;
  const root = mkdtempSync(join(tmpdir(), 'chi-vitest-'));
  process.env.TMPDIR = root;
  process.env[TEMP_ROOT_VARIABLE] = root;
  return () => {
    // biome-ignore lint/suspicious/noUndeclaredEnvVars: the test run's temporary folder, not a turbo task input
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    delete process.env[TEMP_ROOT_VARIABLE];
    const left = leftovers(root);
    rmSync(root, { recursive: true, force: true });
    if (left.length === 0) return;
    // Vitest logs an error thrown here ("error during close") but keeps its exit code: set it.
    process.exitCode = 1;
    throw new Error(
      `tests left ${left.length} temporary folder(s) or file(s) behind: ${left.join(', ')}`,
    );
  };
}

/**
 * What is left in the root besides empty per-file folders `file-*` (which are removed here) and
 * the shared folders (removed with the root).
 */
function leftovers(root: string): string[] {
  const left: string[] = [];
  for (const entry of readdirSync(root, { withFileTypes: true })) {
    if (entry.name === SHARED_FOLDERS && entry.isDirectory()) continue;
    const path = join(root, entry.name);
    const inside = entry.isDirectory() ? readdirSync(path) : [];
    if (entry.isDirectory() && entry.name.startsWith('file-') && inside.length === 0)
      rmdirSync(path);
    else left.push(inside.length === 0 ? entry.name : `${entry.name}/{${inside.join(',')}}`);
  }
  return left;
}
