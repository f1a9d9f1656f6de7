import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChromiumSession, launchChromium } from '../__fixtures__/chromium';
import { buildFixtureRun } from '../__fixtures__/fixture-run';
import { tempDir } from '../__fixtures__/temp-dir';
import { writeRelease } from '../release/write-release';
import { writeViewBundle } from './view-bundle';
import type { ViewComparison } from './view-compare';
import { writeCompareBundle } from './view-compare-bundle';
import { startViewServer, type ViewServer } from './view-server';

const ARTIFACTS = join(import.meta.dirname, '..', '..', 'test-artifacts');

// Issue 37: two runs side by side, paired by world, from the folder index's form to the page.
describe('chi view compare in headless Chromium', () => {
  let dir: { path: string; remove: () => Promise<void> };
  let server: ViewServer | undefined;
  let chromium: ChromiumSession | undefined;

  beforeAll(async () => {
    dir = await tempDir('compare-browser');
    const runs = join(dir.path, 'runs');
    await mkdir(runs);
    for (const [name, seeds] of [
      ['first', [11, 12, 13]],
      ['second', [12, 13, 14]],
    ] as const) {
      const runDir = join(dir.path, `${name}-run`);
      await buildFixtureRun(runDir, { seeds });
      await writeRelease({ runDir, outDir: join(runs, name) });
    }
    server = await startViewServer({ dir: runs });
  }, 300_000);
  afterAll(async () => {
    await chromium?.close();
    await server?.close();
    await dir.remove();
  });

  it('the index form opens the paired comparison; every quantity has its worlds and its interval', async () => {
    chromium = await launchChromium({ width: 1400, height: 900 });
    const page = await chromium.context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    page.on('console', (message) => {
      // the browser's own favicon request is not the page's
      if (message.type() === 'error' && !message.location().url.endsWith('/favicon.ico'))
        errors.push(`${message.text()} ${message.location().url}`);
    });
    await page.goto(server?.url ?? '');
    const form = page.getByTestId('compare-form');
    await form.locator('select[name="a"]').selectOption('first');
    await form.locator('select[name="b"]').selectOption('second');
    await form.locator('input[name="sa"]').fill('keeper');
    await form.locator('input[name="sb"]').fill('forgetful');
    await form.locator('button[type="submit"]').click();
    await page.getByTestId('compare-table').waitFor();
    const api = (await (
      await fetch(new URL('api/compare?a=first&b=second&sa=keeper&sb=forgetful', server?.url))
    ).json()) as ViewComparison;
    expect(await page.getByTestId('compare-row').count()).toBe(api.metrics.length);
    expect(api.metrics.length).toBeGreaterThan(0);
    expect(await page.getByTestId('compare-paired').textContent()).toMatch(
      /^2 world seeds in both runs are paired \(1 only in A and 1 only in B are left out\)/,
    );
    expect(await page.getByTestId('compare-differences').textContent()).toContain('models differ');
    expect(await page.getByTestId('compare-banner').textContent()).toBe(
      'Scripted baseline — not a measurement of any model',
    );
    const first = api.metrics[0] as ViewComparison['metrics'][number];
    const mean = first.meanDifference;
    expect(await page.getByTestId('compare-mean-0').textContent()).toContain(
      mean.estimate === null ? 'undefined' : mean.estimate.toFixed(3),
    );
    const details = page.getByTestId('compare-worlds-0');
    await details.locator('summary').click();
    const worlds = await details.locator('tbody tr td:first-child').allTextContents();
    expect(worlds).toEqual(['12', '13']);
    await mkdir(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'view-compare.png'), fullPage: true });
    expect(errors).toEqual([]);
    await page.close();
  });

  it("a run's summary form opens two of its systems' headline comparison, served and bundled", async () => {
    chromium ??= await launchChromium({ width: 1400, height: 900 });
    const bundle = join(dir.path, 'first-bundle');
    await writeViewBundle(join(dir.path, 'runs', 'first'), bundle);
    const served = `${server?.url}run/first/`;
    for (const url of [served, pathToFileURL(join(bundle, 'index.html')).href]) {
      const page = await chromium.context.newPage();
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      await page.goto(url);
      await page.locator('body[data-ready="true"]').waitFor();
      await page.getByTestId('compare-a').selectOption('keeper');
      await page.getByTestId('compare-b').selectOption('forgetful');
      await page.getByTestId('compare-headline').click();
      await page.getByTestId('compare-table').waitFor();
      expect(await page.getByTestId('compare-paired').textContent(), url).toMatch(
        /^3 world seeds of the run are paired\./,
      );
      expect(await page.locator('li').allTextContents()).toEqual([
        'A: first, system keeper (scripted/keeper)',
        'B: first, system forgetful (scripted/forgetful)',
      ]);
      expect(await page.getByTestId('compare-row').count()).toBeGreaterThan(0);
      if (url === served)
        await page.screenshot({
          path: join(ARTIFACTS, 'view-compare-systems.png'),
          fullPage: true,
        });
      // the way back is the run's viewer
      await page.getByText('back', { exact: true }).click();
      await page.getByTestId('compare-form').waitFor();
      expect(errors).toEqual([]);
      await page.close();
    }
  });

  it('two runs bundled as static pages open from the file system with no request', async () => {
    chromium ??= await launchChromium({ width: 1400, height: 900 });
    const out = join(dir.path, 'runs-bundle');
    const [index] = await writeCompareBundle(
      join(dir.path, 'runs', 'first'),
      join(dir.path, 'runs', 'second'),
      out,
    );
    const page = await chromium.context.newPage();
    const network: string[] = [];
    page.on('request', (r) => {
      if (!r.url().startsWith('file:')) network.push(r.url());
    });
    await page.goto(pathToFileURL(index as string).href);
    await page.getByTestId('compare-table').waitFor();
    expect(await page.getByTestId('compare-paired').textContent()).toMatch(
      /^2 world seeds in both runs are paired/,
    );
    await page.getByTestId('compare-pair-link').first().click();
    await page.locator('code', { hasText: 'forgetful' }).first().waitFor();
    expect(await page.getByTestId('compare-row').count()).toBeGreaterThan(0);
    expect(network).toEqual([]);
    await page.close();
  });
});
