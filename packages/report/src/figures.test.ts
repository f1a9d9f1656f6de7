import { describe, expect, it } from 'vitest';
import { sampleChartData } from './__fixtures__/sample-chart-data';
import type { ChartData } from './chart-data';
import { buildFigures, denominatorSummary } from './figures';
import { renderFigureSvg } from './render-svg';

describe('buildFigures', () => {
  it('builds every figure of the issue from the chart data, in report order', () => {
    const ids = buildFigures(sampleChartData()).map((f) => f.id);
    expect(ids).toEqual([
      'memory-capacity',
      'memory-components',
      'memory-controls',
      'history-accuracy',
      'history-unknown',
      'history-distance',
      'behavior',
      'failure-taxonomy',
      'resources',
    ]);
  });

  it('labels every figure of a scripted run as a scripted baseline in its subtitle and caption', async () => {
    for (const figure of buildFigures(sampleChartData())) {
      const svg = await renderFigureSvg(figure);
      expect(svg, figure.id).toContain('SCRIPTED BASELINE — NOT A MEASUREMENT OF ANY MODEL');
      expect(figure.caption, figure.id).toContain(
        'Scripted baseline — not a measurement of any model',
      );
    }
  });

  it('does not label an all-live run', () => {
    const data = sampleChartData();
    const live: ChartData = {
      ...data,
      run: {
        ...data.run,
        evidenceClass: 'live_model',
        systems: data.run.systems.map((s) => ({ ...s, evidenceClass: 'live_model' as const })),
      },
    };
    for (const figure of buildFigures(live)) {
      expect(JSON.stringify(figure.spec)).not.toMatch(/scripted baseline/i);
      expect(figure.caption).not.toMatch(/scripted baseline/i);
    }
  });

  it('plots the primary Q_M and the mean within-world Q_M as separately labelled quantities', () => {
    const capacity = buildFigures(sampleChartData()).find((f) => f.id === 'memory-capacity');
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

  it('keeps an undefined divergence as null, never as zero', () => {
    const distance = buildFigures(sampleChartData()).find((f) => f.id === 'history-distance');
    const row = distance?.rows.find(
      (r) =>
        r.system === 'capacity-keeper' &&
        r.checkpoint === 2 &&
        String(r.quantity).startsWith('divergence'),
    );
    expect(row?.estimate).toBeNull();
    expect(distance?.caption).toContain('never as zero');
  });

  it('puts the N=32 controls beside the N=32 result only', () => {
    const controls = buildFigures(sampleChartData()).find((f) => f.id === 'memory-controls');
    expect(controls?.rows.map((r) => `${r.system} ${r.condition}`)).toEqual([
      'capacity-keeper notebook (evaluated)',
      'capacity-keeper blank-notebook control',
      'capacity-keeper oracle-evidence control (in-context, not EIMC)',
      'perfect notebook (evaluated)',
      'perfect blank-notebook control',
      'perfect oracle-evidence control (in-context, not EIMC)',
    ]);
  });

  it('stacks taxonomy counts per system and load with passes first', () => {
    const taxonomy = buildFigures(sampleChartData()).find((f) => f.id === 'failure-taxonomy');
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

describe('denominatorSummary', () => {
  const estimate = (worlds: number, completeWorlds: number) => ({
    estimate: 0.5,
    lower: null,
    upper: null,
    intervalNote: 'fewer_than_two_complete_worlds' as const,
    worlds,
    completeWorlds,
    plannedWorlds: 4,
    undefinedReplicates: 0,
  });
  it('states worlds used, complete in the cell and planned, then incomplete and missing blocks', () => {
    expect(
      denominatorSummary(
        [
          { planned: 4, complete: 4, incomplete: 0, missing: 0 },
          { planned: 4, complete: 2, incomplete: 1, missing: 1 },
        ],
        [estimate(2, 4), estimate(2, 2)],
      ),
    ).toBe(
      'worlds used per point: 2 (complete in the cell: 2–4; planned: 4); incomplete blocks (excluded, published separately): 1; missing blocks: 1',
    );
  });
});
