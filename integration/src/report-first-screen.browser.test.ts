/**
 * Issue 37, "summary first, in one screen": on a 1400×900 screen the default pilot's report.html
 * shows its whole headline table (every system's headline estimates) before any scrolling. On the
 * code before, the table's bottom edge was at 1,334 px: EIMC cells spelled their status in words,
 * the behavior indicators were one five-line cell and the caption ran to five lines.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { writeRelease } from '@chi/report';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ChromiumSession,
  launchChromium,
} from '../../packages/report/src/__fixtures__/chromium';
import { tempDir } from '../../packages/report/src/__fixtures__/temp-dir';
import { HEADLINE_TABLE_ID } from '../../packages/report/src/document/report-summary';
import { copySharedPilotRun, SHARED_PILOT_RUNS } from './__fixtures__/shared-pilot-run';

/** A laptop screen: what "one screen" means here. */
const SCREEN = { width: 1400, height: 900 };

describe('report.html first screen', () => {
  let dir: { path: string; remove: () => Promise<void> };
  let chromium: ChromiumSession | undefined;

  beforeAll(async () => {
    dir = await tempDir('first-screen');
    await copySharedPilotRun(SHARED_PILOT_RUNS.twoWorlds, join(dir.path, 'run'));
    await writeRelease({ runDir: join(dir.path, 'run'), outDir: join(dir.path, 'release') });
  });
  afterAll(async () => {
    await chromium?.close();
    await dir.remove();
  });

  it('the headline table of every system ends above the fold of a 1400×900 screen', async () => {
    chromium = await launchChromium(SCREEN);
    const page = await chromium.context.newPage();
    await page.goto(pathToFileURL(join(dir.path, 'release', 'report.html')).href);
    const table = page.locator(`#${HEADLINE_TABLE_ID} table`);
    // one row per system of the default pilot (four evaluated, the perfect reference last)
    const systems = await table.locator('tbody tr td:first-child').allTextContents();
    expect(systems.map((s) => s.split(' ')[0])).toEqual([
      'capacity-keeper',
      'latest-wins',
      'confabulator',
      'abstainer',
      'perfect',
    ]);
    const box = await table.boundingBox();
    expect(box).not.toBeNull();
    const bottom = (box?.y ?? 0) + (box?.height ?? 0);
    expect(bottom, `headline table bottom edge at ${Math.round(bottom)} px`).toBeLessThanOrEqual(
      SCREEN.height,
    );
    await page.close();
  });
});
