import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildFixtureRun } from '../__fixtures__/fixture-run';
import { tempDir } from '../__fixtures__/temp-dir';
import { writeRelease } from '../write-release';
import type { ViewComparison } from './view-compare';
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
  });
});
