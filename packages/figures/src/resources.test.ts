import { fiveSystemChartData, sampleChartData } from '@chi/analysis/test';
import { describe, expect, it } from 'vitest';
import { renderFigureSvg } from './render-svg';
import { omittedPanelsText, resourcePanels, resourcesFigure } from './resources';

describe('resourcesFigure', () => {
  it('draws nothing for an all-scripted run with zero tokens and cost, and says why', () => {
    const data = sampleChartData();
    expect(resourcesFigure(data)).toBeNull();
    expect(omittedPanelsText(resourcePanels(data))).toBe(
      'Not drawn: Tokens (prompt + completion, count) (zero for every system and cell); Cost (USD) (zero for every system and cell); Median latency (ms) (no live model in the run (a scripted system’s latency is not a model latency)).',
    );
  });

  it('draws every panel with data, and latency of live models only', async () => {
    const data = fiveSystemChartData({ live: true });
    expect(resourcePanels(data)).toEqual({
      drawn: ['Tokens (prompt + completion, count)', 'Cost (USD)', 'Median latency (ms)'],
      omitted: [],
    });
    const figure = resourcesFigure(data);
    const latency = figure?.rows.filter((r) => r.metric === 'Median latency (ms)') ?? [];
    expect(new Set(latency.map((r) => r.system))).toEqual(
      new Set(['latest-wins', 'confabulator', 'abstainer']),
    );
    const svg = await renderFigureSvg(figure as NonNullable<typeof figure>);
    expect(svg).toContain('Median latency (ms)');
  });
});
