import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type ViewServer, writeStudyViewBundle } from '@chi/report/viewer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// Debian's chromium through the report's fixture (the one way the repository drives a browser)
import { type ChromiumSession, launchChromium } from '../../../report/src/__fixtures__/chromium';
import { studyDay, threeSessionStudy } from '../__fixtures__/three-session-study';
import { startStudyView, studyViewSource } from './study-view';

type Page = Awaited<ReturnType<ChromiumSession['context']['newPage']>>;

/** Console errors and uncaught exceptions of a page, collected from now on. */
function problemsOf(page: Page): string[] {
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(error.message));
  page.on('console', (message) => {
    // the browser's own favicon request (of the run and comparison pages) is not the page's
    if (message.type() === 'error' && !message.location().url.endsWith('/favicon.ico'))
      problems.push(`${message.text()} (${message.location().url})`);
  });
  return problems;
}

/** The time axis and the trajectory are drawn: one mark per session, points with intervals. */
async function expectStudyDrawn(page: Page): Promise<void> {
  const axis = page.getByTestId('study-time-axis');
  expect((await axis.boundingBox())?.width ?? 0).toBeGreaterThan(300);
  const marks = page.getByTestId('study-session-mark');
  expect(await marks.count()).toBe(3);
  const states: (string | null)[] = [];
  for (let k = 0; k < 3; k++) states.push(await marks.nth(k).getAttribute('data-state'));
  expect(states).toEqual(['done', 'done', 'not-due']);
  expect(await page.getByTestId('study-session-label').allTextContents()).toEqual([
    'done',
    'early (--now), due 2026-09-02 00:00 UTC',
    'not due: 2026-09-07 12:00 UTC',
  ]);
  expect(await page.getByTestId('study-due').count()).toBe(3);
  // two systems x two sessions, each drawn (a point box with a size) in the Q_M panel
  const points = page.getByTestId('study-trajectory-qm-point');
  expect(await points.count()).toBe(4);
  for (let k = 0; k < 4; k++)
    expect((await points.nth(k).boundingBox())?.height ?? 0).toBeGreaterThan(0);
  expect(await page.getByTestId('study-banner').textContent()).toContain('Scripted baseline');
}

describe('chi view STUDY_DIR in Chromium', () => {
  let root: string;
  let browser: ChromiumSession;
  let server: ViewServer;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'chi-study-browser-'));
    const dir = await threeSessionStudy(root, true);
    server = await startStudyView(dir, () => new Date(studyDay(2)), 0);
    browser = await launchChromium({ width: 1280, height: 900 });
  }, 600_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('draws the time axis and the trajectory, and links into a session and a comparison', async () => {
    const page = await browser.context.newPage();
    const problems = problemsOf(page);
    await page.goto(server.url);
    await expectStudyDrawn(page);
    await page.getByTestId('run-link').filter({ hasText: 'run s1' }).click();
    await page.locator('body[data-ready="true"]').waitFor();
    expect(page.url()).toBe(`${server.url}run/s1/`);
    await page.goBack();
    await page.getByTestId('study-compare-link').click();
    await page.getByTestId('compare-table').waitFor();
    expect(problems, problems.join('; ')).toEqual([]);
    await page.close();
  });

  it('draws the same page from the static bundle, with no server', async () => {
    const out = join(root, 'bundle');
    const [index] = await writeStudyViewBundle(
      studyViewSource(join(root, 'st'), () => new Date(studyDay(2))),
      out,
    );
    const page = await browser.context.newPage();
    const problems = problemsOf(page);
    await page.goto(pathToFileURL(index as string).href);
    await expectStudyDrawn(page);
    await page.getByTestId('run-link').filter({ hasText: 'run s1' }).click();
    await page.locator('body[data-ready="true"]').waitFor();
    expect(problems, problems.join('; ')).toEqual([]);
    await page.close();
  });
});
