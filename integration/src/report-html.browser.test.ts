import { mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createScriptedModel, defaultOfflineSettings, runPilot } from '@chi/pilot';
import { writeRelease } from '@chi/report';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ChromiumSession,
  launchChromium,
} from '../../packages/report/src/__fixtures__/chromium';
import { buildFixtureRun } from '../../packages/report/src/__fixtures__/fixture-run';
import { tempDir } from '../../packages/report/src/__fixtures__/temp-dir';

const ARTIFACTS = join(import.meta.dirname, '..', 'test-artifacts');
/** Wider than the 1000-px column plus the page padding, narrower than the old 1239-px figures. */
const VIEWPORT = { width: 1100, height: 900 };

/** The page height budget of report.html at {@link VIEWPORT} (measured 36,866 px for the pilot). */
const HEIGHT_BUDGET_PX = 40_000;

/** Text boxes of one figure that overlap another by more than a pixel in both directions. */
interface Overlap {
  readonly figure: string;
  readonly a: string;
  readonly b: string;
}

/** Layout facts of every figure: size, position against the column, overlapping text boxes. */
async function figureLayout(page: Page) {
  // the right edge of the report column: main's content box
  const columnRight = await page.$eval('main', (main) => {
    const padding = main.ownerDocument.defaultView?.getComputedStyle(main).paddingRight ?? '0';
    return main.getBoundingClientRect().right - Number.parseFloat(padding);
  });
  return page.$$eval(
    'figure.chart',
    (nodes, columnRight) => {
      return nodes.map((node) => {
        const svg = node.querySelector('svg');
        const box = svg?.getBoundingClientRect();
        const texts = [...(svg?.querySelectorAll('text') ?? [])]
          .filter((t) => (t.textContent ?? '').trim() !== '')
          .map((t) => ({ text: t.textContent ?? '', box: t.getBoundingClientRect() }));
        const overlaps: { a: string; b: string }[] = [];
        for (let i = 0; i < texts.length; i++) {
          for (let j = i + 1; j < texts.length; j++) {
            const p = texts[i] as (typeof texts)[number];
            const q = texts[j] as (typeof texts)[number];
            const dx = Math.min(p.box.right, q.box.right) - Math.max(p.box.left, q.box.left);
            const dy = Math.min(p.box.bottom, q.box.bottom) - Math.max(p.box.top, q.box.top);
            if (dx > 1 && dy > 1) overlaps.push({ a: p.text, b: q.text });
          }
        }
        return {
          id: node.id,
          width: box?.width ?? 0,
          height: box?.height ?? 0,
          right: box?.right ?? 0,
          columnRight,
          marks: svg?.querySelectorAll('path, line, rect, text').length ?? 0,
          label: svg?.querySelector('title')?.textContent ?? '',
          overlaps,
        };
      });
    },
    columnRight,
  );
}

async function checkRelease(
  context: BrowserContext,
  releaseDir: string,
  name: string,
): Promise<Overlap[]> {
  const page = await context.newPage();
  const external: string[] = [];
  page.on('request', (request) => {
    if (!request.url().startsWith('file:')) external.push(request.url());
  });
  const consoleErrors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text());
  });
  await page.goto(pathToFileURL(join(releaseDir, 'report.html')).href);
  await mkdir(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, `${name}-report.png`), fullPage: true });

  const svgFiles = (await readdir(join(releaseDir, 'figures'))).filter((f) => f.endsWith('.svg'));
  const figures = await figureLayout(page);
  expect(figures.map((f) => f.id.replace(/^figure-/, '')).sort()).toEqual(
    svgFiles.map((f) => f.replace(/\.svg$/, '')).sort(),
  );
  for (const figure of figures) {
    await page
      .locator(`#${figure.id}`)
      .screenshot({ path: join(ARTIFACTS, `${name}-${figure.id}.png`) });
    expect(figure.width, figure.id).toBeGreaterThan(100);
    expect(figure.width, figure.id).toBeLessThanOrEqual(1000);
    expect(figure.right, figure.id).toBeLessThanOrEqual(figure.columnRight + 0.5);
    expect(figure.height, figure.id).toBeGreaterThan(100);
    expect(figure.marks, figure.id).toBeGreaterThan(10);
    expect(figure.label, figure.id).not.toBe('');
  }
  // no horizontal scrollbar on the page
  const overflow = await page.$eval('html', (root) => root.scrollWidth - root.clientWidth);
  expect(overflow).toBe(0);
  const headings = await page.$$eval('h2', (nodes) => nodes.map((n) => n.textContent));
  expect(headings.slice(0, 2)).toEqual(['Summary', 'Contents']);
  const cases = await page.$eval('a[href="report-cases.html"]', (a) => a.textContent);
  expect(cases).toBe('Case examples');
  const banners = await page.$$eval('p.banner', (nodes) =>
    nodes.filter((n) => n.getBoundingClientRect().height > 0).map((n) => n.textContent),
  );
  // issue 37: the banner once, at the top; captions carry its short label
  expect(banners).toEqual(['Scripted baseline — not a measurement of any model']);
  // the length budget (docs/reading-the-report.md): the page height at this viewport
  const heightPx = await page.$eval('html', (root) => root.scrollHeight);
  expect(heightPx, `${name} report.html height`).toBeLessThanOrEqual(HEIGHT_BUDGET_PX);
  expect(external).toEqual([]);
  expect(consoleErrors).toEqual([]);
  await page.close();
  return figures.flatMap((f) => f.overlaps.map((o) => ({ figure: f.id, ...o })));
}

describe('report.html in headless Chromium', () => {
  let dir: { path: string; remove: () => Promise<void> };
  let chromium: ChromiumSession | undefined;

  beforeAll(async () => {
    dir = await tempDir('browser');
    await buildFixtureRun(join(dir.path, 'run'), { seeds: [11, 12] });
    await writeRelease({ runDir: join(dir.path, 'run'), outDir: join(dir.path, 'release') });
    const settings = defaultOfflineSettings({ replicates: 2, resamples: 200 });
    const models = new Map(settings.systems.map((s) => [s.id, createScriptedModel(s.id)]));
    const pilotRun = join(dir.path, 'pilot-run');
    const outcome = await runPilot({ settings, runDir: pilotRun, models, release: false });
    expect(outcome.exitCode).toBe(0);
    await writeRelease({ runDir: pilotRun, outDir: join(dir.path, 'pilot-release') });
  });
  afterAll(async () => {
    await chromium?.close();
    await dir.remove();
  });

  it('fixture release: every figure fits the column with no overlapping text, nothing loads from outside', async () => {
    chromium = await launchChromium(VIEWPORT);
    const overlaps = await checkRelease(chromium.context, join(dir.path, 'release'), 'fixture');
    expect(overlaps).toEqual([]);
  });

  it('default offline pilot: opens with the summary; every figure fits with no overlapping text', async () => {
    chromium ??= await launchChromium(VIEWPORT);
    const overlaps = await checkRelease(chromium.context, join(dir.path, 'pilot-release'), 'pilot');
    expect(overlaps).toEqual([]);
  });
});
