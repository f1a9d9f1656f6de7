import type { RunChartData } from '@chi/analysis';
import { fiveSystemChartData, sampleChartData } from '@chi/analysis/test';
import { describe, expect, it } from 'vitest';
import { buildFigures, denominatorSummary, systemColors } from './figures';
import { renderFigureSvg } from './render-svg';
import { OKABE_ITO } from './system-colors';

describe('buildFigures', () => {
  it('builds every figure of the issue from the chart data, in report order', () => {
    const ids = buildFigures(sampleChartData()).map((f) => f.id);
    expect(ids).toEqual([
      'memory-capacity',
      'memory-components',
      'memory-controls',
      'failure-taxonomy',
      'history-accuracy',
      'history-unknown',
      'history-distance',
      'behavior',
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
    const live: RunChartData = {
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

/** Every object of a spec, depth first. */
function specParts(value: unknown): Record<string, unknown>[] {
  if (Array.isArray(value)) return value.flatMap(specParts);
  if (value === null || typeof value !== 'object') return [];
  const record = value as Record<string, unknown>;
  return [record, ...Object.values(record).flatMap(specParts)];
}

describe('every figure', () => {
  const datasets = {
    sample: sampleChartData(),
    'five scripted systems': fiveSystemChartData(),
    'five systems, three live': fiveSystemChartData({ live: true }),
  };

  it('colours each system with its one fixed colour, and nothing else with a system colour', () => {
    for (const [name, data] of Object.entries(datasets)) {
      const colors = systemColors(data.run);
      const systemPalette = new Set(colors.values());
      for (const figure of buildFigures(data)) {
        for (const part of specParts(figure.spec)) {
          const scale = part.scale as { domain?: unknown[]; range?: unknown[] } | undefined;
          const isColor = (scale?.range ?? []).every((v) => String(v).startsWith('#'));
          if (!isColor) continue;
          if (part.field === 'system') {
            if (scale?.domain === undefined) continue;
            expect(scale.domain, `${name} ${figure.id}`).toEqual([...colors.keys()]);
            expect(scale.range, `${name} ${figure.id}`).toEqual([...colors.values()]);
          } else if (Array.isArray(scale?.range)) {
            for (const value of scale.range)
              expect(systemPalette.has(String(value)), `${name} ${figure.id} ${part.field}`).toBe(
                false,
              );
          }
        }
        // a colour channel never uses a shared scheme whose order could differ between figures
        expect(JSON.stringify(figure.spec), `${name} ${figure.id}`).not.toContain('"scheme"');
      }
    }
  });

  it('colours perfect the same in every figure of every run', () => {
    expect(systemColors(sampleChartData().run).get('perfect')).toBe(OKABE_ITO.blue);
    // a mixed run marks scripted systems with †; the colour stays
    expect(systemColors(fiveSystemChartData({ live: true }).run).get('perfect †')).toBe(
      OKABE_ITO.blue,
    );
  });

  it('fits a 1000-px column, with x axis titles no wider than their panel', async () => {
    for (const [name, data] of Object.entries(datasets)) {
      for (const figure of buildFigures(data)) {
        const svg = await renderFigureSvg(figure);
        const width = Number(/^<svg[^>]* width="([\d.]+)"/.exec(svg)?.[1]);
        expect(width, `${name} ${figure.id}`).toBeGreaterThan(300);
        expect(width, `${name} ${figure.id}`).toBeLessThanOrEqual(1000);
        const spec = figure.spec as { spec?: { width?: number } };
        const panel = spec.spec?.width;
        if (panel === undefined) continue;
        for (const part of specParts(figure.spec)) {
          const axis = part.axis as { title?: unknown } | undefined;
          const title = typeof axis?.title === 'string' ? axis.title : null;
          // vega's estimate: 0.8 x font size (11 for axis titles) per character
          if (title !== null && part.field !== 'estimate' && part.field !== 'lower')
            expect(title.length * 0.8 * 11, `${name} ${figure.id} "${title}"`).toBeLessThan(panel);
        }
      }
    }
  });

  it('draws no series on top of an identical one: every point of a panel has its own position', async () => {
    // capacity-keeper, latest-wins, confabulator and abstainer carry identical rows here
    const data = fiveSystemChartData();
    for (const figure of buildFigures(data)) {
      if (!['memory-components', 'memory-capacity', 'history-accuracy'].includes(figure.id))
        continue;
      const svg = await renderFigureSvg(figure);
      const groups = [...svg.matchAll(/<g class="mark-symbol role-mark[^"]*"[^>]*>(.*?)<\/g>/g)];
      expect(groups.length, figure.id).toBeGreaterThan(0);
      for (const group of groups) {
        const positions = [...(group[1] ?? '').matchAll(/transform="translate\(([^)]*)\)"/g)].map(
          (m) => m[1],
        );
        expect(new Set(positions).size, figure.id).toBe(positions.length);
      }
    }
  });
});
