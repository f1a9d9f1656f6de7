import type { ModuleEstimate } from '@chi/analysis';
import { sampleChartData } from '@chi/analysis/test';
import { defineExperimentScorer, type WorldScorer } from '@chi/experiment';
import { describe, expect, it } from 'vitest';
import { moduleFigure, moduleFigureAxis } from './module-figure';
import { renderFigureSvg } from './render-svg';

/** A scorer from outside the toolkit: the figure needs nothing but its declarations. */
const outside = defineExperimentScorer<{ items: number }>({
  specificationVersion: 'chi-scorer-v1',
  experimentId: 'x-outside',
  title: 'An outside experiment',
  parametersOf: () => ({ items: 1 }),
  columns: ['accuracy', 'shift'],
  estimands: [
    { column: 'accuracy', label: 'share of items correct' },
    { column: 'shift', label: 'change against the control' },
  ],
  scoreWorld: () => ({ values: { accuracy: 1, shift: 0 }, traces: [] }),
  notes: [],
}) as WorldScorer;

function estimate(systemId: string, column: string, value: number | null): ModuleEstimate {
  return {
    experiment: 'x-outside',
    systemId,
    evidenceClass: 'scripted_baseline',
    column,
    label: column,
    estimate: value,
    lower: value === null ? null : value - 0.1,
    upper: value === null ? null : value + 0.1,
    level: 0.95,
    intervalOmittedReason: value === null ? 'undefined_estimate' : null,
    worlds: 3,
    plannedWorlds: 4,
  };
}

describe('the figure of a module experiment', () => {
  it('reads its y axis from the values: [0, 1] for shares, whole units around signed shifts', () => {
    const axis = (values: (number | null)[]) =>
      moduleFigureAxis(values.map((v, i) => estimate(`s${i}`, 'accuracy', v)));
    expect(axis([0.5, null])).toEqual({ domain: [0, 1], ticks: [0, 0.2, 0.4, 0.6, 0.8, 1] });
    expect(axis([-0.5, 0.95]).domain).toEqual([-1, 2]);
    expect(axis([-0.5, 0.5])).toEqual({ domain: [-1, 1], ticks: [-1, -0.5, 0, 0.5, 1] });
    expect(axis([17]).ticks).toEqual([0, 5, 10, 15, 20]);
  });

  it('is drawn for any scorer: every estimate with its interval, per system, within the column', async () => {
    const data = sampleChartData();
    const systems = data.run.systems.map((s) => s.id);
    const estimates = systems.flatMap((id, i) => [
      estimate(id, 'accuracy', i === 0 ? null : 0.5),
      estimate(id, 'shift', -0.3),
    ]);
    const figure = moduleFigure(data, outside, estimates);
    expect(figure?.id).toBe('experiment-x-outside');
    expect(figure?.svgPath).toBe('figures/experiment-x-outside.svg');
    expect(figure?.rows.map((r) => [r.estimand, r.estimate, r.lower, r.upper])).toEqual(
      estimates.map((e) => [e.column, e.estimate, e.lower, e.upper]),
    );
    expect(figure?.caption).toContain('accuracy: share of items correct');
    expect(figure?.caption).toContain('labelled n/a, never drawn as zero');
    const svg = await renderFigureSvg(figure as NonNullable<typeof figure>);
    const width = Number(/^<svg[^>]* width="([\d.]+)"/.exec(svg)?.[1]);
    expect(width).toBeGreaterThan(300);
    expect(width).toBeLessThanOrEqual(1000);
    expect(svg).toContain('>n/a<');
    expect(moduleFigure(data, outside, [])).toBeNull();
  });
});
