import { sampleChartData } from '@chi/analysis/test';
import { describe, expect, it } from 'vitest';
import { memoryControlsFigure } from './memory-controls';

describe('memoryControlsFigure', () => {
  it('puts the N=32 controls beside the N=32 result only', () => {
    const controls = memoryControlsFigure(sampleChartData());
    expect(controls?.rows.map((r) => `${r.system} ${r.condition}`)).toEqual([
      'capacity-keeper notebook (evaluated)',
      'capacity-keeper blank-notebook control',
      'capacity-keeper oracle-evidence control (in-context, not EIMC)',
      'perfect notebook (evaluated)',
      'perfect blank-notebook control',
      'perfect oracle-evidence control (in-context, not EIMC)',
    ]);
  });
});
