import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sharedFolder } from '../../../../tooling/vitest/shared-folder';
import { runCli } from '../cli/cli-main';
import { captureIo } from './cli-io';

/** An offline divergence run made by `chi pilot` and shared by the test files that read it. */
export interface SharedDivergenceRun {
  /** The folder the command ran in (its `--out run` is `cwd/run`). */
  readonly cwd: string;
  /** The run folder, `cwd/run`. */
  readonly runDir: string;
  /** The release, `cwd/run/release`. */
  readonly release: string;
  /** The command's exit code and what it printed on stdout. */
  readonly code: number;
  readonly out: string;
}

/**
 * The offline divergence run `chi pilot --protocol divergence-v0.1 --replicates 2 --seed 7
 * --resamples 20 --out run`, made once per vitest run for every test file that asks for it
 * (divergence/command.test.ts, release-copy.test.ts, view.test.ts: one run where there were three;
 * docs/benchmarks/ci.md, "Fourth pass"). Nothing may write into it: a test that changes the run or
 * its release copies it first (`cpSync`).
 */
export async function sharedDivergenceRun(): Promise<SharedDivergenceRun> {
  const argv = ['pilot', '--protocol', 'divergence-v0.1', '--replicates', '2'];
  const options = [...argv, '--seed', '7', '--resamples', '20', '--out', 'run'];
  const cwd = await sharedFolder(`chi ${options.join(' ')}`, async (folder) => {
    const cli = captureIo({ cwd: folder });
    const code = await runCli(options, cli.io);
    if (code !== 0) throw new Error(`the shared divergence run exited ${code}: ${cli.err()}`);
    // what it printed, for every file that reads the run (written before the run counts as made)
    writeFileSync(join(folder, PRINTED), JSON.stringify({ code, out: cli.out() }));
  });
  const printed = JSON.parse(readFileSync(join(cwd, PRINTED), 'utf8')) as {
    code: number;
    out: string;
  };
  return { cwd, runDir: join(cwd, 'run'), release: join(cwd, 'run', 'release'), ...printed };
}

/** The command's exit code and stdout, kept beside the run folder. */
const PRINTED = 'printed.json';
