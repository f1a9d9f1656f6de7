import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeArgsFor } from '../../../../tooling/vitest/child-bundle';
import { type Child, startNode } from '../../../../tooling/vitest/child-process';
import { copyOfSharedOfflineRun } from '../__fixtures__/offline-run';
import { testFolder } from '../__fixtures__/test-folder';
import { EXIT_CODES } from './exit-codes';

// The house rule "every protocol stops on one Ctrl-C" on the worker-thread path of `chi score`
// and `chi verify` (release-workers.ts): the child runs `chi` with a worker entry
// (__fixtures__/chi-with-workers.ts, CHI_WORKERS=2), and the worker is held at the failpoint
// `release:worker` before its task begins, so the signal lands while a worker task is in flight by
// construction, never by timing. A worker that crashes there instead (CHI_FAILPOINT_ACTION) must
// end the command with a typed error and exit 1, not a hang or a stack trace.

const CHI = await nodeArgsFor(
  fileURLToPath(new URL('../__fixtures__/chi-with-workers.ts', import.meta.url)),
);
const WORKER = (
  await nodeArgsFor(
    fileURLToPath(new URL('../../../report/src/release/release-worker.ts', import.meta.url)),
  )
).at(-1) as string;

/** A stack frame line: what no message of `chi` may contain. */
const STACK_FRAME = /\n\s+at /;

/** `chi ARGS` with release worker threads, `env` over this environment; its temp folder `tmp`. */
function spawnChi(args: readonly string[], tmp: string, env: Record<string, string> = {}): Child {
  return startNode([...CHI, ...args], {
    env: {
      CHI_WORKERS: '2',
      CHI_TEST_RELEASE_WORKER: WORKER,
      TMPDIR: tmp,
      CHI_FAILPOINT: '',
      ...env,
    },
    stdout: 'ignore',
  });
}

/** Runs `args` until a release worker is held at `release:worker`, then sends one SIGINT. */
async function interruptHeldWorker(args: readonly string[], tmp: string): Promise<Child> {
  const marker = join(tmp, 'marker');
  const child = spawnChi(args, tmp, {
    CHI_FAILPOINT: 'release:worker:1',
    CHI_FAILPOINT_MARKER: marker,
  });
  await child.untilFile(marker); // the worker is at its failpoint
  expect(readFileSync(marker, 'utf8')).toBe('release:worker:1\n');
  child.process.kill('SIGINT');
  await child.exit;
  return child;
}

/** The names in `dir` other than the marker and what a test put there. */
function leftIn(dir: string, except: readonly string[] = []): string[] {
  return readdirSync(dir)
    .filter((name) => !except.includes(name))
    .sort();
}

/** The SIGINT lines of a stopped `chi`: exactly one, saying it quits with 130. */
function expectOneQuitLine(stderr: string): void {
  expect(stderr.match(/chi: SIGINT/g) ?? [], stderr).toHaveLength(1);
  expect(stderr).toContain('chi: SIGINT: quit (exit 130)');
  expect(stderr).not.toMatch(STACK_FRAME);
}

describe('one Ctrl-C of chi score and chi verify with a worker task in flight', () => {
  let runs: string[] = [];
  let baseline: { runDir: string; sums: string };
  beforeAll(async () => {
    const run = await copyOfSharedOfflineRun();
    // one uninterrupted `chi score` with worker threads: the bytes every other test must give
    const tmp = mkdtempSync(join(tmpdir(), 'chi-sigint-baseline-'));
    const child = spawnChi(['score', run.runDir], tmp);
    expect(await child.exit, child.stderr()).toBe(EXIT_CODES.ok);
    rmSync(tmp, { recursive: true, force: true });
    baseline = {
      runDir: run.runDir,
      sums: readFileSync(join(run.runDir, 'release', 'SHA256SUMS'), 'utf8'),
    };
    runs = [run.runDir];
  });
  afterAll(() => {
    for (const dir of runs) rmSync(dir, { recursive: true, force: true });
  });

  /** A copy of the baseline run folder without its release, in this test's folder. */
  const unscoredCopy = (folder: string): string => {
    const runDir = join(folder, 'run');
    cpSync(baseline.runDir, runDir, { recursive: true });
    rmSync(join(runDir, 'release'), { recursive: true, force: true });
    return runDir;
  };

  it('chi score exits 130 at once, leaves only a staging folder the next chi score replaces, and that one gives the same bytes', async () => {
    const folder = testFolder('chi-sigint-score-');
    const runDir = unscoredCopy(folder);
    const tmp = join(folder, 'tmp');
    mkdirSync(tmp);
    const before = leftIn(runDir);
    const stopped = await interruptHeldWorker(['score', runDir], tmp);
    expect(await stopped.exit, stopped.stderr()).toBe(EXIT_CODES.secondSignal);
    expectOneQuitLine(stopped.stderr());
    // no release in place; nothing but the staging folder (and the CHIS entries, rewritten by
    // every chi score) changed; no lock left that the next command would refuse
    expect(existsSync(join(runDir, 'release'))).toBe(false);
    const added = leftIn(runDir).filter((name) => !before.includes(name));
    for (const name of added) expect(name).toMatch(/^\.release\.partial-[0-9a-f]+$/);
    expect(leftIn(tmp, ['marker'])).toEqual([]);

    const again = spawnChi(['score', runDir], tmp);
    expect(await again.exit, again.stderr()).toBe(EXIT_CODES.ok);
    expect(leftIn(runDir).filter((name) => name.startsWith('.release.'))).toEqual([]);
    expect(readFileSync(join(runDir, 'release', 'SHA256SUMS'), 'utf8')).toBe(baseline.sums);
  });

  it('chi verify exits 130 at once and writes nothing', async () => {
    const folder = testFolder('chi-sigint-verify-');
    const tmp = join(folder, 'tmp');
    mkdirSync(tmp);
    const release = join(baseline.runDir, 'release');
    const before = readdirSync(release, { recursive: true }).sort();
    const stopped = await interruptHeldWorker(['verify', release], tmp);
    expect(await stopped.exit, stopped.stderr()).toBe(EXIT_CODES.secondSignal);
    expectOneQuitLine(stopped.stderr());
    // its spill folder (in TMPDIR) is gone, and the release is as it was
    expect(leftIn(tmp, ['marker'])).toEqual([]);
    expect(readdirSync(release, { recursive: true }).sort()).toEqual(before);
    expect(readFileSync(join(release, 'SHA256SUMS'), 'utf8')).toBe(baseline.sums);
  });

  for (const action of ['exit', 'throw'] as const)
    it(`a release worker that crashes (${action}) ends chi score with a typed error on one line and exit 1, leaving no staging folder`, async () => {
      const folder = testFolder(`chi-worker-${action}-`);
      const runDir = unscoredCopy(folder);
      const tmp = join(folder, 'tmp');
      mkdirSync(tmp);
      const crashed = spawnChi(['score', runDir], tmp, {
        CHI_FAILPOINT: 'release:worker:1',
        CHI_FAILPOINT_ACTION: action,
      });
      expect(await crashed.exit, crashed.stderr()).toBe(EXIT_CODES.runtimeFailure);
      const lines = crashed
        .stderr()
        .split('\n')
        .filter((line) => line.startsWith('chi: '));
      expect(lines.at(-1)).toMatch(
        action === 'exit'
          ? /^chi: release worker \(write-raw-files\) stopped unexpectedly: exit code 86$/
          : /^chi: release worker \(write-raw-files\) stopped unexpectedly: failpoint release:worker:1: thrown outside any task$/,
      );
      expect(crashed.stderr()).not.toMatch(STACK_FRAME);
      // the staging folder went with the error (the next chi score is the first test's case)
      expect(existsSync(join(runDir, 'release'))).toBe(false);
      expect(leftIn(runDir).filter((name) => name.startsWith('.release.'))).toEqual([]);
    });
});
