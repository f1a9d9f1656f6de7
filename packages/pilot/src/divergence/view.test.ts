import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { captureIo } from '../__fixtures__/cli-io';
import { testFolder } from '../__fixtures__/test-folder';
import { runCli } from '../cli-main';

describe('chi view of a divergence run', () => {
  it('bundles and serves the release report.html, scripted baselines labelled', async () => {
    const cwd = testFolder('chi-divergence-view-');
    const argv = ['pilot', '--protocol', 'divergence-v0.1', '--replicates', '1'];
    expect(
      await runCli([...argv, '--resamples', '20', '--out', 'run'], captureIo({ cwd }).io),
    ).toBe(0);
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
