/**
 * Vitest setup file: gives each test file its own temporary folder and fails the file when a test
 * leaves anything in it.
 *
 * Before the file's tests are loaded, `TMPDIR` points at a fresh folder inside the run's root
 * (`temp-dirs-global.ts`), so `os.tmpdir()` in the file, in its fixtures and in the child
 * processes it starts (with the inherited environment) all land there. After the file's own
 * `afterAll` hooks (this hook is registered first, so it runs last), the folder must be empty; it
 * is removed either way, and a non-empty one fails the file with the names of what was left.
 * Before that check, a child process the file started through `child-process.ts` and left running
 * (a test that failed or timed out before it stopped its child) is killed, and fails the file too.
 *
 * Measuring only (docs/benchmarks/ci.md, "Fifth pass"): with `CHI_FILE_CPU=<path>` set, each file
 * appends one JSON line to `<path>` with the CPU seconds its worker spent on it (from this setup
 * file's start, before the test file is imported, to its last `afterAll`), its own and that of the
 * child processes it waited for. Nothing is written without it.
 */
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, relative } from 'node:path';
import { afterAll, expect } from 'vitest';
import { killLeftChildren } from './child-process';

// biome-ignore lint/suspicious/noUndeclaredEnvVars: the test run's temporary folder, not a turbo task input
const runRoot = process.env.CHI_TEST_TEMP_ROOT;
const root = runRoot ?? tmpdir();
// biome-ignore lint/suspicious/noUndeclaredEnvVars: the test run's temporary folder, not a turbo task input
const previous = process.env.TMPDIR;
const testFile = expect.getState().testPath ?? 'test';
const folder = mkdtempSync(join(root, `file-${basename(testFile).replace(/\W+/g, '-')}-`));
process.env.TMPDIR = folder;
const cpuAtStart = cpuSeconds();

/**
 * CPU seconds of this worker so far: user and system, its own and its waited-for children's
 * (`/proc/self/stat` fields 14-17, in clock ticks of 1/100 s on Linux). Null without `/proc`.
 */
function cpuSeconds(): { self: number; children: number } | null {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = (index: number) => Number(fields[index - 3]);
    return { self: (ticks(14) + ticks(15)) / 100, children: (ticks(16) + ticks(17)) / 100 };
  } catch {
    return null;
  }
}

/** Appends this file's CPU seconds to `CHI_FILE_CPU` (measuring runs only). */
function recordCpu(): void {
  // biome-ignore lint/suspicious/noUndeclaredEnvVars: a measuring switch, not a turbo task input
  const path = process.env.CHI_FILE_CPU;
  const now = cpuSeconds();
  if (path === undefined || now === null || cpuAtStart === null) return;
  const line = {
    file: relative(process.cwd(), testFile),
    node: process.version,
    self: Number((now.self - cpuAtStart.self).toFixed(2)),
    children: Number((now.children - cpuAtStart.children).toFixed(2)),
  };
  appendFileSync(path, `${JSON.stringify(line)}\n`);
}

afterAll(async () => {
  const children = await killLeftChildren();
  // biome-ignore lint/suspicious/noUndeclaredEnvVars: the test run's temporary folder, not a turbo task input
  if (previous === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = previous;
  const left = readdirSync(folder);
  rmSync(folder, { recursive: true, force: true });
  recordCpu();
  if (children > 0)
    throw new Error(
      `${testFile} left ${children} child process(es) running; they were killed (every test stops what it starts)`,
    );
  if (left.length > 0)
    throw new Error(
      `${testFile} left ${left.length} temporary folder(s) or file(s) behind: ${left.sort().join(', ')} (every test removes what it creates)`,
    );
});
