import { sampleChartData } from '@chi/analysis/test';
import { describe, expect, it } from 'vitest';
import { historyDistanceFigure } from './history-distance';

describe('historyDistanceFigure', () => {
  it('keeps an undefined divergence as null, never as zero', () => {
    const distance = historyDistanceFigure(sampleChartData());
    const row = distance?.rows.find(
      (r) =>
        r.system === 'capacity-keeper' &&
        r.checkpoint === 2 &&
        String(r.quantity).startsWith('divergence'),
    );
    expect(row?.estimate).toBeNull();
    expect(distance?.caption).toContain('never as zero');
  });
});
