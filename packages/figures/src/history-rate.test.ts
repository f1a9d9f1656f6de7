import { sampleChartData } from '@chi/analysis/test';
import { describe, expect, it } from 'vitest';
import type { FigureRow } from './figure-definition';
import { historyRateFigure } from './history-rate';

describe('historyRateFigure', () => {
  it('titles every panel x axis "Checkpoint" and explains the checkpoints once, in the subtitle', () => {
    const figure = historyRateFigure(sampleChartData(), 'accuracy');
    const spec = JSON.stringify(figure?.spec);
    expect(spec).toContain('"title":"Checkpoint"');
    expect(spec).toContain('Checkpoints: 0 baseline, 1 ingest, 2–3 neutral, 4 correction.');
    // every panel draws its own x axis (a wrapped row never leaves an axis under an empty slot)
    expect(spec).toContain('"resolve":{"axis":{"x":"independent"}}');
  });

  it('builds the accuracy and the explicit-unknown figures from the same points', () => {
    const accuracy = historyRateFigure(sampleChartData(), 'accuracy');
    const unknown = historyRateFigure(sampleChartData(), 'unknownRate');
    expect([accuracy?.id, unknown?.id]).toEqual(['history-accuracy', 'history-unknown']);
    const at = (rows: readonly FigureRow[]) =>
      rows.find((r) => r.system === 'perfect' && r.history === 'A' && r.checkpoint === 0);
    expect(at(accuracy?.rows ?? [])?.estimate).toBe(1);
    expect(at(unknown?.rows ?? [])?.estimate).toBe(1);
  });
});
