import { cpSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { captureIo } from '../__fixtures__/cli-io';
import { sharedDivergenceRun } from '../__fixtures__/shared-divergence-run';
import { testFolder } from '../__fixtures__/test-folder';
import { runCli } from '../cli/cli-main';

describe('chi view of a divergence run', () => {
  it('bundles the report.html and serves a drill-down: systems, grids, dynamics, per-world values', async () => {
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
    const base = await url;
    // the report's viewer picked the divergence view kind; `chi view` says so as it always has
    expect(served.err()).toBe(
      `chi: viewing the divergence release ${join(cwd, 'run', 'release')} at ${base} (127.0.0.1 only): systems, grids by checkpoint, dynamics, per-world values; Ctrl-C stops\n`,
    );
    const get = async (path: string) => {
      const response = await fetch(new URL(path, base));
      return { status: response.status, text: await response.text() };
    };
    try {
      // the first page: every system's headline, linked to its grid; the banner once
      const overview = await get('/');
      expect(overview.status).toBe(200);
      expect(overview.text).toContain(
        '<p class="banner" role="note">Scripted baseline — not a measurement of any model</p>',
      );
      expect(overview.text).toContain('<a href="/system/stateless">stateless (SCRIPTED BASELINE');
      expect(overview.text).toContain('href="/report.html"');
      expect((await get('/report.html')).text).toBe(report);
      expect((await get('/figures/divergence-trajectory.svg')).text).toBe(
        readFileSync(join(cwd, 'run', 'release', 'figures', 'divergence-trajectory.svg'), 'utf8'),
      );

      // a system: the series and arm grids by checkpoint, and the dynamics with the method
      const system = await get('/system/notebook-follower');
      expect(system.status).toBe(200);
      expect(system.text).toContain('<table id="series-grid">');
      expect(system.text).toContain('<table id="arm-grid">');
      expect(system.text).toContain('<table id="dynamics">');
      expect(system.text).toContain('studentized');
      expect(system.text).toContain('href="/cell/notebook-follower/excess%406"');
      expect(system.text).toContain('href="/cell/notebook-follower/accuracy%3AA%400"');
      expect(system.text).toContain('href="/cell/notebook-follower/plasticity"');

      // a cell: its per-world values, exactly the rows of divergence-worlds.csv
      const cell = await get('/cell/notebook-follower/excess%406');
      expect(cell.status).toBe(200);
      const csv = readFileSync(join(cwd, 'run', 'release', 'divergence-worlds.csv'), 'utf8')
        .split('\n')
        .filter((line) => line.startsWith('notebook-follower,excess@6,'));
      expect(csv).toHaveLength(2);
      for (const line of csv) {
        const [, , seed, value] = line.split(',');
        expect(cell.text).toContain(`<tr><td>${seed}</td><td>${value}</td><td>yes</td>`);
      }
      const accuracy = await get('/cell/notebook-follower/accuracy%3AA%400');
      expect(accuracy.text).toContain('task accuracy of arm A at checkpoint 0');

      expect((await get('/system/nobody')).status).toBe(404);
      expect((await get('/cell/notebook-follower/excess%4099')).status).toBe(404);
      expect((await get('/api/data')).status).toBe(404);
      // the report's viewer serves it: a missing figure is a 404 page (it was a 500 naming the
      // file's absolute path); a malformed percent-encoding (it was a 500) or a segment that
      // decodes to a path is a 400 before the kind sees it
      const missing = await get('/figures/nope.svg');
      expect(missing.status).toBe(404);
      expect(missing.text).not.toContain(cwd);
      expect((await get('/cell/notebook-follower/%E0%A4%A')).status).toBe(400);
      expect((await get('/system/..%2F..%2Fetc')).status).toBe(400);
    } finally {
      stop();
    }
    expect(await exit).toBe(0);
  });
});
