/**
 * The paired comparisons in a release: their files, report section and viewer table, and
 * `chi verify` recomputing them (and catching an edit of them).
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildFixtureRun } from '../__fixtures__/fixture-run';
import { tempDir } from '../__fixtures__/temp-dir';
import { verifyRelease } from '../verify/verify-release';
import { openViewRun } from '../view/view-run';
import { writeRelease } from './write-release';

describe('paired comparisons in a release', () => {
  let dir: { path: string; remove: () => Promise<void> };
  let release: string;
  beforeAll(async () => {
    dir = await tempDir('comparisons-release');
    await buildFixtureRun(join(dir.path, 'run'), { seeds: [11, 12, 13], resamples: 100 });
    release = join(dir.path, 'release');
    await writeRelease({ runDir: join(dir.path, 'run'), outDir: release });
  });
  afterAll(async () => dir.remove());

  it('writes the table, the figure and a report section, and the viewer shows the table', async () => {
    const csv = await readFile(join(release, 'chart-data/comparisons.csv'), 'utf8');
    const header = csv.split('\n')[0] ?? '';
    expect(header.startsWith('panel,comparison,systemA,systemB,evidence')).toBe(true);
    expect(
      csv.split('\n').filter((line) => line.includes('SCRIPTED keeper − forgetful')),
    ).toHaveLength(11);
    await expect(readFile(join(release, 'figures/comparisons.svg'), 'utf8')).resolves.toContain(
      '<svg',
    );
    const report = await readFile(join(release, 'report.md'), 'utf8');
    expect(report).toContain('## Paired comparisons');
    expect(report).toContain('Holm');
    expect(report).toContain('Exploratory: fewer than 30 paired worlds');
    const view = await (await openViewRun(release)).summary();
    const tables = (view.summary ?? []).filter((block) => block.kind === 'table');
    expect(
      tables.some((t) => t.kind === 'table' && t.caption.startsWith('Paired differences')),
    ).toBe(true);
  });

  it('chi verify recomputes the comparisons and names an edited difference', async () => {
    const fresh = await verifyRelease(release);
    expect(fresh.mismatches).toEqual([]);
    const path = join(release, 'chart-data/comparisons.csv');
    const text = await readFile(path, 'utf8');
    const lines = text.split('\n');
    lines[1] = (lines[1] ?? '').replace(',SCRIPTED,', ',live,');
    await writeFile(path, lines.join('\n'));
    const edited = await verifyRelease(release);
    expect(edited.ok).toBe(false);
    expect(JSON.stringify(edited.mismatches)).toContain('chart-data/comparisons.csv');
  });
});
