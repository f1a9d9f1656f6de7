import type { ReportSystem } from '@chi/analysis/internal';
import { sampleChartData } from '@chi/analysis/test';
import { describe, expect, it } from 'vitest';
import { colorsForSystems } from './palette';
import { OKABE_ITO, SCRIPTED_SYSTEM_COLORS, systemColors } from './system-colors';

describe('systemColors', () => {
  it('gives every scripted system its fixed colour whatever the manifest order', () => {
    const data = sampleChartData();
    const reversed = { ...data.run, systems: [...data.run.systems].reverse() };
    expect(systemColors(data.run)).toEqual(systemColors(reversed));
    expect(systemColors(data.run).get('capacity-keeper')).toBe(OKABE_ITO.orange);
  });

  it('gives other systems distinct colours that no scripted system uses', () => {
    const run = {
      ...sampleChartData().run,
      systems: ['a/x', 'b/y', 'c/z'].map((id) => ({
        ...(sampleChartData().run.systems[0] as ReportSystem),
        id,
        model: id,
        kind: 'openrouter',
        evidenceClass: 'live_model' as const,
        uncappedNotebook: false,
      })),
    };
    const colors = [...systemColors(run).values()];
    expect(new Set(colors).size).toBe(3);
    for (const c of colors) {
      expect(Object.values(SCRIPTED_SYSTEM_COLORS)).not.toContain(c);
    }
  });

  it('draws every system from the Okabe–Ito palette, eight distinct before any repeats', () => {
    const data = sampleChartData();
    const template = data.run.systems[0] as ReportSystem;
    const others = ['a/x', 'b/y', 'c/z'].map((id) => ({ ...template, id, model: id }));
    const run = { ...data.run, systems: [...others, ...data.run.systems] };
    const colors = [...systemColors(run).values()];
    const palette: string[] = Object.values(OKABE_ITO);
    for (const c of colors) expect(palette).toContain(c);
    expect(new Set(colors).size).toBe(colors.length);
    // the scripted systems keep their colours though three other systems come first
    expect(systemColors(run).get('capacity-keeper')).toBe(OKABE_ITO.orange);
  });
});

describe('colorsForSystems (@chi/figures/palette, the colours chi view draws with)', () => {
  it('gives each system the colour the figures give it, for scripted and live systems in any order', () => {
    const data = sampleChartData();
    const template = data.run.systems[0] as ReportSystem;
    const live = ['a/x', 'b/y'].map((id) => ({ ...template, id, model: id, kind: 'openrouter' }));
    for (const systems of [
      [...live, ...data.run.systems],
      [...data.run.systems].reverse(),
      [data.run.systems.at(-1) as ReportSystem, ...live],
    ]) {
      const run = { ...data.run, systems };
      const figureColors = [...systemColors(run).values()];
      const viewColors = [...colorsForSystems(systems.map((s) => s.id)).values()];
      expect(viewColors).toEqual(figureColors);
    }
  });
});
