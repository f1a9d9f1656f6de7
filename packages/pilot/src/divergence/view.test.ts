import { cpSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { captureIo } from '../__fixtures__/cli-io';
import { sharedDivergenceRun } from '../__fixtures__/shared-divergence-run';
import { testFolder } from '../__fixtures__/test-folder';
import { runCli } from '../cli-main';

describe('chi view of a divergence run', () => {
  it('bundles and serves the release report.html, scripted baselines labelled', async () => {
    const cwd = testFolder('chi-divergence-view-');
    // a copy of the offline run shared with command.test.ts (`--replicates 2 --seed 7 --resamples
    // 20`; a one-world run of its own before, which nothing here depends on)
    const shared = await sharedDivergenceRun();
    expect(shared.code).toBe(0);
    cpSync(shared.runDir, join(cwd, 'run'), { recursive: true });
    const report = readFileSync(join(cwd, 'run', 'release', 'report.html'), 'utf8');
    expect(report).toContain('stateless (SCRIPTED BASELINE, not a model)');

    // the run folder (not only its release) is a view target
    const bundle = captureIo({ cwd });
    expect(await runCli(['view', 'run', '--bundle', 'view'], bundle.io)).toBe(0);
    expect(bundle.out().trim()).toBe(join(cwd, 'view', 'index.html'));
    expect(readFileSync(join(cwd, 'view', 'index.html'), 'utf8')).toBe(report);

    let stop: () => void = () => {};
    let announced: (url: string) => void = () => {};
    const url = new Promise<string>((resolve) => {
      announced = resolve;
    });
    const served = captureIo({
      cwd,
      untilStopped: new Promise<void>((resolve) => {
        stop = resolve;
      }),
    });
    const io = {
      ...served.io,
      stdout: { write: (text: string) => announced(text.trim()) },
    };
    const exit = runCli(['view', join('run', 'release'), '--port', '0'], io);
    const page = await (await fetch(await url)).text();
    stop();
    expect(await exit).toBe(0);
    expect(page).toBe(report);
  });
});
