import { sampleChartData } from '@chi/analysis/test';
import { describe, expect, it } from 'vitest';
import { failureTaxonomyFigure } from './failure-taxonomy';

describe('failureTaxonomyFigure', () => {
  it('stacks taxonomy counts per system and load with passes first', () => {
    const taxonomy = failureTaxonomyFigure(sampleChartData());
    const keeper32 = taxonomy?.rows.filter(
      (r) => r.system === 'capacity-keeper' && r.cell === 'N=32',
    );
    expect(keeper32?.map((r) => [r.reason, r.count, r.reasonRank])).toEqual([
      ['correct', 20, 1],
      ['correct_abstention', 24, 0],
      ['stale', 4, 3],
    ]);
  });
});
