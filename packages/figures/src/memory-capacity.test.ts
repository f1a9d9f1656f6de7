import { sampleChartData } from '@chi/analysis/test';
import { describe, expect, it } from 'vitest';
import { memoryCapacityFigure } from './memory-capacity';

describe('memoryCapacityFigure', () => {
  it('plots the primary Q_M and the mean within-world Q_M as separately labelled quantities', () => {
    const capacity = memoryCapacityFigure(sampleChartData());
    const quantities = new Set(capacity?.rows.map((r) => r.quantity));
    expect([...quantities]).toEqual([
      'Q_M of world-mean factors (primary)',
      'mean within-world Q_M (different quantity)',
    ]);
    // the fixture's load 64 has one complete world: no interval, and a note saying so
    const single = capacity?.rows.find((r) => r.load === 64 && r.system === 'perfect');
    expect(single).toMatchObject({
      lower: null,
      upper: null,
      intervalNote: 'fewer_than_two_complete_worlds',
      worlds: 1,
    });
    expect(capacity?.caption).toContain(
      'No interval is drawn where fewer than two complete worlds exist.',
    );
    expect(capacity?.caption).toContain('Exploratory: fewer than 30 complete worlds');
  });
});
