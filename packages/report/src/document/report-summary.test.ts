import { chartPartOf, type RunChartData } from '@chi/analysis';
import { sampleChartData } from '@chi/analysis/test';
import { describe, expect, it } from 'vitest';
import { summaryBlocks } from './report-summary';

/** The summary table's excess-divergence column: its header and one cell per system. */
function divergenceLines(data: RunChartData): string[] {
  const table = summaryBlocks(data).find((block) => block.kind === 'table');
  if (table?.kind !== 'table') return [];
  const column = table.columns.findIndex((c) => c.startsWith('Excess divergence'));
  return table.rows.map((row) => `${table.columns[column]}: ${row[column]}`);
}

/** The sample chart data with its divergence at checkpoint `c` set to `c / 10` for every system. */
function withCheckpointValues(primaryCheckpoint: number): RunChartData {
  const data = sampleChartData();
  return {
    ...data,
    run: { ...data.run, analysis: { ...data.run.analysis, primaryCheckpoint } },
    experiments: {
      ...data.experiments,
      history: {
        ...chartPartOf(data, 'history'),
        historyDistances: chartPartOf(data, 'history').historyDistances.map((d) => ({
          ...d,
          divergence: { ...d.divergence, estimate: d.checkpoint / 10 },
        })),
      },
    },
  };
}

describe('the summary reads the excess divergence at the manifest primary checkpoint', () => {
  it('reads checkpoint 3 when the manifest says 3, and checkpoint 1 when it says 1', () => {
    const three = divergenceLines(withCheckpointValues(3));
    expect(three.length).toBeGreaterThan(0);
    for (const line of three) expect(line).toMatch(/, checkpoint 3 .*: 0\.300/);
    const one = divergenceLines(withCheckpointValues(1));
    expect(one.length).toBe(three.length);
    for (const line of one) expect(line).toMatch(/, checkpoint 1 .*: 0\.100/);
  });
});

describe('the summary of a partial run', () => {
  it('says partial with the complete worlds of planned before the table; a complete run does not', () => {
    const data = sampleChartData();
    // the sample run has an incomplete memory block in world 2
    const blocks = summaryBlocks(data);
    const banner = blocks.find((b) => b.kind === 'banner');
    expect(banner?.kind === 'banner' && banner.text).toMatch(
      /^Partial run — partial: 2 of 3 worlds complete \(\d+ of \d+ blocks\)/,
    );
    expect(blocks.findIndex((b) => b.kind === 'banner')).toBeLessThan(
      blocks.findIndex((b) => b.kind === 'table'),
    );
    const complete: RunChartData = {
      ...data,
      missingness: {
        ...data.missingness,
        blocks: data.missingness.blocks.map((b) => ({ ...b, status: 'complete', reasons: [] })),
      },
    };
    expect(summaryBlocks(complete).some((b) => b.kind === 'banner')).toBe(false);
  });
});
