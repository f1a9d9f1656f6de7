import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildFixtureRun } from './__fixtures__/fixture-run';
import { tempDir } from './__fixtures__/temp-dir';
import { writeRelease } from './write-release';

/** Debian's chromium (CI installs it); never a downloaded browser. */
const CHROMIUM = '/usr/bin/chromium';

describe('report.html in headless Chromium', () => {
  let dir: { path: string; remove: () => Promise<void> };
  let browser: Browser | undefined;
  let userDataDir: { path: string; remove: () => Promise<void> };

  beforeAll(async () => {
    dir = await tempDir('browser');
    userDataDir = await tempDir('chromium-profile');
    await buildFixtureRun(join(dir.path, 'run'), { seeds: [11, 12] });
    await writeRelease({ runDir: join(dir.path, 'run'), outDir: join(dir.path, 'release') });
  });
  afterAll(async () => {
    await browser?.close();
    await dir.remove();
    await userDataDir.remove();
  });

  it('renders every figure with a non-empty size and loads nothing from outside the page', async () => {
    // Fail, never skip: a missing browser must not turn this test green.
    expect(
      existsSync(CHROMIUM),
      `${CHROMIUM} is missing: install Debian's chromium (apt-get install chromium) to run the report's browser test`,
    ).toBe(true);
    const context = await chromium.launchPersistentContext(userDataDir.path, {
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    browser = context.browser() ?? undefined;
    try {
      const page = await context.newPage();
      const external: string[] = [];
      page.on('request', (request) => {
        if (!request.url().startsWith('file:')) external.push(request.url());
      });
      const consoleErrors: string[] = [];
      page.on('console', (message) => {
        if (message.type() === 'error') consoleErrors.push(message.text());
      });
      await page.goto(pathToFileURL(join(dir.path, 'release', 'report.html')).href);

      const svgFiles = (await readdir(join(dir.path, 'release', 'figures'))).filter((f) =>
        f.endsWith('.svg'),
      );
      const figures = await page.$$eval('figure.chart', (nodes) =>
        nodes.map((node) => {
          const svg = node.querySelector('svg');
          const box = svg?.getBoundingClientRect();
          return {
            id: node.id,
            width: box?.width ?? 0,
            height: box?.height ?? 0,
            marks: svg?.querySelectorAll('path, line, rect, text').length ?? 0,
            label: svg?.querySelector('title')?.textContent ?? '',
          };
        }),
      );
      expect(figures.map((f) => f.id.replace(/^figure-/, '')).sort()).toEqual(
        svgFiles.map((f) => f.replace(/\.svg$/, '')).sort(),
      );
      for (const figure of figures) {
        expect(figure.width, figure.id).toBeGreaterThan(100);
        expect(figure.height, figure.id).toBeGreaterThan(100);
        expect(figure.marks, figure.id).toBeGreaterThan(10);
        expect(figure.label, figure.id).not.toBe('');
      }
      const banners = await page.$$eval('p.banner', (nodes) =>
        nodes.filter((n) => n.getBoundingClientRect().height > 0).map((n) => n.textContent),
      );
      expect(banners.length).toBeGreaterThan(5);
      expect(banners[0]).toBe('Scripted baseline — not a measurement of any model');
      expect(external).toEqual([]);
      expect(consoleErrors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
