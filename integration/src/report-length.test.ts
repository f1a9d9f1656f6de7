/**
 * The length budget of the default release (docs/reading-the-report.md, "The summary and the
 * length budget"): the default offline pilot's report must stay readable. `@chi/pilot` is
 * imported through the workspace test alias, as in pilot-release.test.ts.
 */
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { createScriptedModel, defaultOfflineSettings, runPilot } from '@chi/pilot';
import { writeRelease } from '@chi/report';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../packages/report/src/__fixtures__/temp-dir';
import { fixedClock } from './__fixtures__/fixed-clock';

/** The budget: report.md lines and report.html bytes of the default offline pilot (4 worlds). */
const REPORT_BUDGET = { markdownLines: 900, htmlBytes: 1_100_000 } as const;

describe('the default release keeps its length budget', () => {
  it('report.md and report.html of the default offline pilot stay within budget, summary first', async () => {
    const dir = await tempDir('length');
    try {
      const runDir = join(dir.path, 'run');
      const now = fixedClock('2026-09-01T00:00:00.000Z');
      // the default offline pilot; resamples change no line of the report, only its numbers
      const settings = defaultOfflineSettings({ resamples: 200 });
      const models = new Map(
        settings.systems.map((s) => [s.id, createScriptedModel(s.id, { now })]),
      );
      const outcome = await runPilot({ settings, runDir, models, release: false, now });
      expect(outcome.exitCode).toBe(0);
      const outDir = join(dir.path, 'release');
      await writeRelease({ runDir, outDir });
      const markdown = await readFile(join(outDir, 'report.md'), 'utf8');
      const lines = markdown.split('\n').length;
      const htmlBytes = (await stat(join(outDir, 'report.html'))).size;
      expect(lines).toBeLessThanOrEqual(REPORT_BUDGET.markdownLines);
      expect(htmlBytes).toBeLessThanOrEqual(REPORT_BUDGET.htmlBytes);
      // the summary (its table and the headline figure) comes within the first 40 lines
      expect(markdown.indexOf('## Contents')).toBeLessThan(
        markdown.split('\n').slice(0, 40).join('\n').length,
      );
      expect(markdown.split('Scripted baseline — not a measurement of any model')).toHaveLength(2);
      // no table of "—" rows stands in for a null section
      expect(markdown).not.toMatch(/(\| — ){6}/);
    } finally {
      await dir.remove();
    }
  }, 600_000);
});
