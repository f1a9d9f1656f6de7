import { sampleChartData } from '@chi/analysis/test';
import { describe, expect, it } from 'vitest';
import { behaviorFigure } from './behavior';

describe('behaviorFigure', () => {
  it('labels the bars R, C, A, I and A change, the change rate lighter, in the system colour', () => {
    const spec = JSON.stringify(behaviorFigure(sampleChartData())?.spec);
    expect(spec).toContain('\\"A frame-induced change (rate)\\" ? \\"A change\\"');
    expect(spec).toContain('[1,1,1,1,0.4]');
    expect(spec).toContain('"color":{"field":"system"');
  });

  it('writes the value above each bar: 0.00 for zero, n/a for undefined', () => {
    const spec = JSON.stringify(behaviorFigure(sampleChartData())?.spec);
    expect(spec).toContain(
      `"calculate":"isValid(datum.estimate) ? format(datum.estimate, '.2f') : 'n/a'"`,
    );
  });
});
