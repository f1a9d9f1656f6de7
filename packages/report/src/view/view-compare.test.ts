import { mkdir, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildFixtureRun } from '../__fixtures__/fixture-run';
import { tempDir } from '../__fixtures__/temp-dir';
import { writeRelease } from '../release/write-release';
import { viewApiPath } from './view-api';
import { writeViewBundle } from './view-bundle';
import type { ViewComparison } from './view-compare';
import { writeCompareBundle } from './view-compare-bundle';
import { startViewServer, type ViewServer } from './view-server';

// Issue 37: "two runs or two systems side by side, paired by world". A folder of runs serves
// /compare and /api/compare; the fixture runs: `a` (worlds 11, 12, 13), `b` (12, 13, 14: two
// shared), `far` (21, 22: none shared) and `live` (worlds 11-13, live evidence).
describe('chi view compare (server)', () => {
  let dir: { path: string; remove: () => Promise<void> };
  let server: ViewServer;
  const get = async (path: string) => {
    const response = await fetch(new URL(path, server.url));
    return { status: response.status, text: await response.text() };
  };

  beforeAll(async () => {
    dir = await tempDir('compare');
    const runs = join(dir.path, 'runs');
    await mkdir(runs);
    const make = async (name: string, seeds: number[], live = false) => {
      const runDir = join(dir.path, `${name}-run`);
      await buildFixtureRun(runDir, {
        seeds,
        ...(live ? { evidenceClass: 'live_model' as const } : {}),
      });
      await writeRelease({ runDir, outDir: join(runs, name) });
    };
    await make('a', [11, 12, 13]);
    await make('b', [12, 13, 14]);
    await make('far', [21, 22]);
    await make('live', [11, 12, 13], true);
    server = await startViewServer({ dir: runs });
  }, 300_000);
  afterAll(async () => {
    await server?.close();
    await dir.remove();
  });

  it('pairs the shared world seeds and gives B − A per world with a bootstrap interval', async () => {
    const { status, text } = await get('api/compare?a=a&b=b&sa=keeper&sb=forgetful');
    expect(status, text).toBe(200);
    const comparison = JSON.parse(text) as ViewComparison;
    expect(comparison.pairedWorlds).toEqual([12, 13]);
    expect(comparison.banner).toBe('Scripted baseline — not a measurement of any model');
    expect(comparison.unpairedWorlds).toEqual({ a: 1, b: 1 });
    expect(comparison.a.system).toBe('keeper');
    expect(comparison.b.system).toBe('forgetful');
    expect(comparison.differences.some((d) => d.startsWith('models differ'))).toBe(true);
    expect(comparison.metrics.map((m) => m.name)).toContain('Q_M N = 8');
    for (const metric of comparison.metrics) {
      expect(metric.worlds.map((w) => w.worldSeed)).toEqual([12, 13]);
      for (const w of metric.worlds) expect(w.difference).toBeCloseTo(w.b - w.a, 12);
      const mean = metric.worlds.reduce((s, w) => s + w.difference, 0) / metric.worlds.length;
      expect(metric.meanDifference.estimate).toBeCloseTo(mean, 12);
      expect(metric.meanDifference.clusters).toBe(2);
    }
    // the same request gives the same bytes (fixed bootstrap seed)
    expect((await get('api/compare?a=a&b=b&sa=keeper&sb=forgetful')).text).toBe(text);
  });

  it('says when the two runs are not like for like, and when they are', async () => {
    const same = JSON.parse((await get('api/compare?a=a&b=b')).text) as ViewComparison;
    expect(same.a.system).toBe(same.b.system);
    expect(same.differences.filter((d) => d.startsWith('models'))).toEqual([]);
    const live = JSON.parse((await get('api/compare?a=a&b=live')).text) as ViewComparison;
    expect(live.differences.join('\n')).toMatch(
      /evidence differs: A is scripted_baseline, B is live_model/,
    );
    expect(live.pairedWorlds).toEqual([11, 12, 13]);
  });

  it('refuses runs whose world seeds do not overlap, an unknown run and an unknown system', async () => {
    const far = await get('api/compare?a=a&b=far');
    expect(far.status).toBe(400);
    expect(far.text).toMatch(/^b: far shares no world seed with a/);
    const page = await get('compare?a=a&b=far');
    expect(page.status).toBe(400);
    expect(page.text).toContain('data-testid="compare-refused"');
    expect((await get('api/compare?a=a&b=nope')).text).toMatch(
      /^b: expected one of the folder's runs/,
    );
    expect((await get('api/compare?a=a&b=b&sa=nobody')).text).toMatch(/^a: no system "nobody"/);
  });

  it('lists a compare form on the folder index', async () => {
    const index = await get('');
    expect(index.text).toContain('data-testid="compare-form"');
    // the system fields offer the folder's system ids
    expect(index.text).toContain(
      '<datalist id="compare-systems"><option value="keeper"><option value="forgetful"></datalist>',
    );
  });

  it('compares two systems of one run of the folder, paired by world, under the run', async () => {
    const { status, text } = await get('run/a/api/compare?sa=keeper&sb=forgetful');
    expect(status, text).toBe(200);
    const comparison = JSON.parse(text) as ViewComparison;
    expect([comparison.a.label, comparison.a.system]).toEqual(['a', 'keeper']);
    expect([comparison.b.label, comparison.b.system]).toEqual(['a', 'forgetful']);
    expect(comparison.pairedWorlds).toEqual([11, 12, 13]);
    expect(comparison.unpairedWorlds).toEqual({ a: 0, b: 0 });
    // two systems of one run differ in their models by design: not "not like for like"
    expect(comparison.differences).toEqual([]);
    // the same numbers as the folder's compare of run a with itself
    expect((await get('api/compare?a=a&b=a&sa=keeper&sb=forgetful')).text).toBe(text);
    const page = await get('run/a/compare?sa=keeper&sb=forgetful');
    expect(page.text).toContain('3 world seeds of the run are paired.');
    expect(page.text).toContain('Two systems of one run: the same worlds, prompts and settings');
    expect(page.text).not.toContain('Not like for like');
    expect((await get('run/a/api/compare?sa=keeper&sb=nobody')).text).toMatch(
      /^b: no system "nobody"/,
    );
  });
});

// Issue 37: the comparison pages open from the file system too. A run's viewer bundle holds one
// page per ordered pair of its systems; `chi view RUN_A RUN_B --bundle OUT` the runs' comparison.
describe('chi view compare (static bundles)', () => {
  let dir: { path: string; remove: () => Promise<void> };
  let server: ViewServer;
  const release = (name: string) => join(dir.path, name);

  beforeAll(async () => {
    dir = await tempDir('compare-bundle');
    for (const [name, seeds] of [
      ['a', [11, 12, 13]],
      ['b', [12, 13, 14]],
    ] as const) {
      await buildFixtureRun(join(dir.path, `${name}-run`), { seeds });
      await writeRelease({ runDir: join(dir.path, `${name}-run`), outDir: release(name) });
    }
    server = await startViewServer({ dir: release('a') });
  }, 300_000);
  afterAll(async () => {
    await server?.close();
    await dir.remove();
  });

  it("a run's bundle holds the server's page of every ordered pair of its systems", async () => {
    const out = join(dir.path, 'viewer');
    await writeViewBundle(release('a'), out);
    const data = await readFile(join(out, 'data.js'), 'utf8');
    const answers = JSON.parse(data.replace(/^window\.CHI_VIEW_DATA = /, '').replace(/;\n$/, ''));
    const pairs = [
      ['keeper', 'forgetful'],
      ['forgetful', 'keeper'],
    ];
    for (const [sa, sb] of pairs) {
      const entry = answers[viewApiPath('comparepage', { sa, sb })] as { file: string };
      const served = await (await fetch(new URL(`compare?sa=${sa}&sb=${sb}`, server.url))).text();
      const bundled = await readFile(join(out, entry.file), 'utf8');
      // the same page but for the way back (index.html: './' is a folder listing on file://)
      expect(bundled).toBe(
        served.replace('<a href="./">back</a>', '<a href="index.html">back</a>'),
      );
    }
    expect((await readdir(out)).filter((f) => f.startsWith('compare-')).sort()).toEqual([
      'compare-0-1.html',
      'compare-1-0.html',
    ]);
  });

  it('a run without a release records why its systems cannot be paired', async () => {
    const out = join(dir.path, 'viewer-unreleased');
    await writeViewBundle(join(dir.path, 'a-run'), out);
    const data = await readFile(join(out, 'data.js'), 'utf8');
    const answers = JSON.parse(data.replace(/^window\.CHI_VIEW_DATA = /, '').replace(/;\n$/, ''));
    const entry = answers[viewApiPath('comparepage', { sa: 'keeper', sb: 'forgetful' })];
    expect(entry.refused).toMatch(/has no release/);
  });

  it('writes two runs as static pages, one per system both have, paired by world', async () => {
    const out = join(dir.path, 'compare-bundle');
    const files = await writeCompareBundle(release('a'), release('b'), out);
    expect(files).toEqual([join(out, 'index.html'), join(out, 'compare-1.html')]);
    const index = await readFile(join(out, 'index.html'), 'utf8');
    expect(index).toContain('data-testid="compare-table"');
    expect(index).toContain('2 world seeds in both runs are paired (1 only in A and 1 only in B');
    expect(index).toContain('system <code>keeper</code>');
    expect(index).toContain('href="compare-1.html">forgetful</a>');
    expect(index).not.toContain('>back</a>');
    const second = await readFile(join(out, 'compare-1.html'), 'utf8');
    expect(second).toContain('system <code>forgetful</code>');
    expect(second).toContain('href="index.html">keeper</a>');
  });

  it('refuses two runs that share no world seed, or a folder that is no run, naming it', async () => {
    await buildFixtureRun(join(dir.path, 'far-run'), { seeds: [21, 22] });
    await writeRelease({ runDir: join(dir.path, 'far-run'), outDir: release('far') });
    await expect(
      writeCompareBundle(release('a'), release('far'), join(dir.path, 'x')),
    ).rejects.toThrow(/^b: far shares no world seed with a/);
    await expect(writeCompareBundle(release('a'), dir.path, join(dir.path, 'y'))).rejects.toThrow(
      /^DIR: expected a run folder or a release holding manifest\.json/,
    );
  });
});
