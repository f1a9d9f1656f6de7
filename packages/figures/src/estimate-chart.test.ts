import { chartPartOf, type RunChartData } from '@chi/analysis';
import { sampleChartData } from '@chi/analysis/test';
import { describe, expect, it } from 'vitest';
import { capWidthPx, labelExpression, seriesOffsetStep } from './estimate-chart';
import { historyDistanceFigure } from './history-distance';
import { renderFigureSvg } from './render-svg';

describe('series offsets and interval caps', () => {
  it('spreads series over at most 0.4 axis units around a tested value, 0.2 apart at most', () => {
    expect(seriesOffsetStep(1)).toBe(0);
    expect(seriesOffsetStep(2)).toBe(0.2);
    expect(seriesOffsetStep(3)).toBe(0.2);
    expect(seriesOffsetStep(5)).toBe(0.1);
  });

  it('sizes a cap to at most 80% of the distance between neighbouring series, 2–10 px', () => {
    expect(capWidthPx(12.5, 3)).toBe(10);
    expect(capWidthPx(7.5, 3)).toBe(6);
    expect(capWidthPx(1, 5)).toBe(2);
    expect(capWidthPx(0, 1)).toBe(10);
  });
});

describe('undefined values and empty panels', () => {
  it('draws an undefined estimate as a cross below the zero line, never at zero', async () => {
    const figure = historyDistanceFigure(sampleChartData());
    if (figure === null) throw new Error('no figure');
    const svg = await renderFigureSvg(figure);
    // the sample's capacity-keeper divergence at checkpoint 2 is undefined
    expect(figure.rows.some((r) => r.estimate === null)).toBe(true);
    const crosses = svg.match(/<path transform="translate\([^)]*\)" d="M-[\d.]+,-[\d.]+h[\d.]+/g);
    expect(crosses).not.toBeNull();
    expect(figure.caption).toContain('grey × below the zero line');
  });

  it('leaves out a system whose every value is undefined, and names it', () => {
    const data = sampleChartData();
    const undefinedEstimate = {
      estimate: null,
      lower: null,
      upper: null,
      intervalNote: 'undefined_estimate' as const,
      worlds: 0,
      completeWorlds: 3,
      plannedWorlds: 3,
      undefinedReplicates: 0,
    };
    const blanked: RunChartData = {
      ...data,
      experiments: {
        ...data.experiments,
        history: {
          ...chartPartOf(data, 'history'),
          historyDistances: chartPartOf(data, 'history').historyDistances.map((d) =>
            d.systemId === 'perfect'
              ? {
                  ...d,
                  distanceAB: undefinedEstimate,
                  distanceAA2: undefinedEstimate,
                  divergence: undefinedEstimate,
                }
              : d,
          ),
        },
      },
    };
    const figure = historyDistanceFigure(blanked);
    if (figure === null) throw new Error('no figure');
    const facet = (figure.spec as { facet: { sort: string[] } }).facet;
    expect(facet.sort).toEqual(['capacity-keeper']);
    expect(figure?.caption).toContain('Not drawn (no defined value at any point): perfect.');
  });
});

describe('labelExpression', () => {
  it('maps each long label to its short one and leaves others', () => {
    expect(labelExpression({ 'R reasoning': 'R', 'I integration': 'I' })).toBe(
      'datum.label === "R reasoning" ? "R" : (datum.label === "I integration" ? "I" : (datum.label))',
    );
  });
});
