import { describe, expect, it } from 'vitest';
import { bareImportsOf } from '../../../../tooling/vitest/module-graph';

// `chi view`'s first paint spent about a third of its CPU importing vega and vega-lite, which only
// the release writer's SVG figures need (docs/benchmarks/view.md). The viewer entry must not reach
// them, statically, through any file it imports.
describe('@chi/report/viewer', () => {
  it('never imports the chart libraries', () => {
    const entry = new URL('../viewer.ts', import.meta.url).pathname;
    const charts = bareImportsOf(entry).filter(({ specifier }) =>
      /^vega(-lite)?(\/|$)/.test(specifier),
    );
    expect(charts.map(({ specifier, chain }) => `${chain.join(' -> ')} -> ${specifier}`)).toEqual(
      [],
    );
  });

  it('finds them from the package root, so the check can fail', () => {
    const entry = new URL('../index.ts', import.meta.url).pathname;
    expect(bareImportsOf(entry).map(({ specifier }) => specifier)).toContain('vega');
  });
});
