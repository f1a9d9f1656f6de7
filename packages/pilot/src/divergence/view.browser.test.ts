import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startViewServer, type ViewServer } from '@chi/report/viewer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// Debian's chromium through the report's fixture (the one way the repository drives a browser)
import { type ChromiumSession, launchChromium } from '../../../report/src/__fixtures__/chromium';
import { sharedDivergenceRun } from '../__fixtures__/shared-divergence-run';
import { DIVERGENCE_VIEW_KIND } from './view';

describe('chi view of a divergence release, in Chromium', () => {
  let browser: ChromiumSession;
  let server: ViewServer;
  let release: string;

  beforeAll(async () => {
    // the offline run shared with command.test.ts and view.test.ts; only read here
    release = (await sharedDivergenceRun()).release;
    server = await startViewServer({ dir: release, port: 0, kinds: [DIVERGENCE_VIEW_KIND] });
    browser = await launchChromium({ width: 1400, height: 900 });
  }, 600_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('clicks from the headline to a system grid, a cell, and its per-world values', async () => {
    const page = await browser.context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    await page.goto(server.url);
    expect(await page.locator('.banner').count()).toBe(1);
    expect(await page.locator('.banner').textContent()).toContain('Scripted baseline');
    await page.locator('#systems a', { hasText: 'hidden-state' }).first().click();
    await page.locator('#series-grid').waitFor();
    // the grid: one row per series, one column per checkpoint, every cell a link
    const checkpoints = await page.locator('#series-grid thead th').count();
    expect(checkpoints).toBeGreaterThan(2);
    expect(await page.locator('#series-grid tbody tr').count()).toBe(7);
    expect(await page.locator('#arm-grid tbody tr').count()).toBeGreaterThan(3);
    expect(await page.locator('#dynamics tbody tr').count()).toBeGreaterThan(10);
    await page.locator('#series-grid tbody tr').first().locator('td a').last().click();
    await page.locator('#worlds').waitFor();
    const seeds = await page.locator('#worlds tbody td:first-child').allTextContents();
    const csv = readFileSync(join(release, 'divergence-worlds.csv'), 'utf8');
    const statistic = decodeURIComponent(new URL(page.url()).pathname.split('/').at(-1) ?? '');
    const expected = csv
      .split('\n')
      .filter((line) => line.startsWith(`hidden-state,${statistic},`))
      .map((line) => line.split(',')[2]);
    expect(expected.length).toBeGreaterThan(0);
    expect(seeds).toEqual(expected);
    // back up through the crumbs to the first page
    await page.locator('.crumbs a').first().click();
    await page.locator('#systems').waitFor();
    expect(problems, problems.join('; ')).toEqual([]);
    await page.close();
  });
});
