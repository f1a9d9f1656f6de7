import type { RunChartData } from '@chi/analysis';
import { renderFigureSvg } from '@chi/figures';
import { comparisonsFigure } from '@chi/figures/internal';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildFixtureRun } from '../__fixtures__/fixture-run';
import { tempDir } from '../__fixtures__/temp-dir';
import { readRunFolder } from '../run-folder/run-folder';
import { analyzeRun } from './analyze-run';
import { scoreRun } from './score-run';

describe('comparisonsFigure', () => {
  let dir: { path: string; remove: () => Promise<void> };
  let data: RunChartData;
  beforeAll(async () => {
    dir = await tempDir('comparisons-figure');
    await buildFixtureRun(dir.path, { seeds: [11, 12, 13], resamples: 50 });
    const records = await readRunFolder(dir.path);
    data = analyzeRun(records, scoreRun(records));
  });
  afterAll(async () => dir.remove());

  it('plots every comparison, labelled SCRIPTED, in a column of at most 1000 px', async () => {
    const figure = comparisonsFigure(data);
    expect(figure).not.toBeNull();
    if (figure === null) return;
    expect(figure.rows).toHaveLength(data.comparisons?.rows.length ?? -1);
    expect(figure.rows.every((row) => String(row.comparison).startsWith('SCRIPTED '))).toBe(true);
    expect(figure.caption).toContain('not a ranking of models');
    const svg = await renderFigureSvg(figure);
    const width = Number(/<svg[^>]*\swidth="([\d.]+)"/.exec(svg)?.[1]);
    expect(width).toBeGreaterThan(0);
    expect(width).toBeLessThanOrEqual(1000);
    if (process.env.PEEK_SVG !== undefined) {
      const { writeFile } = await import('node:fs/promises');
      await writeFile(process.env.PEEK_SVG, svg);
    }
  });

  it('renders without printing: vega-lite compile warnings never reach the console', async () => {
    const figure = comparisonsFigure(data);
    if (figure === null) throw new Error('expected a comparisons figure');
    const printed = (['log', 'info', 'warn', 'error'] as const).map((method) =>
      vi.spyOn(console, method).mockImplementation(() => {}),
    );
    try {
      await renderFigureSvg(figure);
      for (const spy of printed) expect(spy).not.toHaveBeenCalled();
    } finally {
      for (const spy of printed) spy.mockRestore();
    }
  });

  it('is absent for a run without comparisons', () => {
    const { comparisons: _, ...without } = data;
    expect(comparisonsFigure(without as RunChartData)).toBeNull();
  });
});
