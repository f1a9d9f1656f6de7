import { describe, expect, it } from 'vitest';
import { ChartDataSchema } from './chart-data';
import { CHART_FILE_PARTS, chartDataFile, chartPartOf, runChartData } from './chart-parts';
import { sampleChartDataFile } from './test/sample-chart-data';

describe('chart data keyed by experiment ID, and its file adapter', () => {
  it('gathers each experiment part under its ID and spreads it back to the same file', () => {
    const file = ChartDataSchema.parse(sampleChartDataFile());
    const data = runChartData(file);
    expect(Object.keys(data.experiments)).toEqual(['memory', 'history', 'behavior']);
    // nothing of an experiment stays at the top level of the in-memory form
    for (const part of CHART_FILE_PARTS)
      for (const field of part.fields) expect(field in data).toBe(false);
    expect(chartPartOf(data, 'memory').eimc).toBe(file.eimc);
    expect(chartPartOf(data, 'history').historyVectors).toBe(file.historyVectors);
    expect(chartDataFile(data)).toEqual(file);
  });

  it('reads an experiment the run does not have as its empty part', () => {
    const { experiments: _, ...rest } = runChartData(sampleChartDataFile());
    const none = { ...rest, experiments: {} };
    expect(chartPartOf(none, 'behavior')).toEqual({ behavior: [] });
    expect(chartPartOf(none, 'memory')).toEqual({ memory: [], eimc: [], taxonomy: [] });
  });

  it('keeps the part of an experiment the file does not register out of chart-data.json', () => {
    const file = sampleChartDataFile();
    const data = runChartData(file);
    const added = { ...data, experiments: { ...data.experiments, 'x-tally': { tally: [1] } } };
    expect(chartDataFile(added)).toEqual(file);
    expect(() => ChartDataSchema.parse(chartDataFile(added))).not.toThrow();
  });
});
