import { describe, expect, it } from 'vitest';
import { bareImportsOf } from '../../../../tooling/vitest/module-graph';

// `chi export inspect` scores and analyses a run but draws no figure: its entry must not load
// vega or vega-lite (the figures, `@chi/figures`), statically, through any file it imports.
describe('@chi/report/inspect', () => {
  it('never imports the chart libraries', () => {
    const entry = new URL('../inspect.ts', import.meta.url).pathname;
    const charts = bareImportsOf(entry).filter(({ specifier }) =>
      /^vega(-lite)?(\/|$)/.test(specifier),
    );
    expect(charts.map(({ specifier, chain }) => `${chain.join(' -> ')} -> ${specifier}`)).toEqual(
      [],
    );
  });
});
