import { sampleChartData } from '@chi/analysis/test';
import { describe, expect, it } from 'vitest';
import { FACTOR_LABELS, memoryComponentsFigure } from './memory-components';

describe('memoryComponentsFigure', () => {
  it('plots every factor per system and load, 1 − f as passing lures / lures', () => {
    const figure = memoryComponentsFigure(sampleChartData());
    expect(figure?.rows).toHaveLength(2 * 2 * 6);
    const lure = figure?.rows.find(
      (r) => r.system === 'perfect' && r.load === 32 && r.factor === FACTOR_LABELS.oneMinusF,
    );
    // the sample has 0 failing lures of 8
    expect(lure).toMatchObject({ estimate: 1, numerator: 8, denominator: 8 });
  });

  it('gives each system its own point shape as well as its colour', () => {
    const spec = JSON.stringify(memoryComponentsFigure(sampleChartData())?.spec);
    expect(spec).toContain(
      '"shape":{"field":"system","type":"nominal","title":"System","scale":{"domain":["capacity-keeper","perfect"],"range":["circle","square"]}',
    );
  });
});
