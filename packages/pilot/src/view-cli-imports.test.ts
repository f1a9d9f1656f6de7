import { describe, expect, it } from 'vitest';
import { bareImportsOf } from '../../../tooling/vitest/module-graph';

const CHARTS = /^vega(-lite)?(\/|$)/;

function chartImports(file: string): string[] {
  return bareImportsOf(new URL(file, import.meta.url).pathname)
    .filter(({ specifier }) => CHARTS.test(specifier))
    .map(({ specifier, chain }) => `${chain.join(' -> ')} -> ${specifier}`);
}

// `chi view` is the `chi` executable's cli.ts plus view-cli.ts (cli-main is imported on demand for
// every other command): neither may reach the release writer's chart libraries.
describe('chi view module graph', () => {
  it('cli.ts and view-cli.ts never statically import vega', () => {
    expect([...chartImports('./cli.ts'), ...chartImports('./view-cli.ts')]).toEqual([]);
  });

  it('cli-main.ts does (the check can fail)', () => {
    expect(chartImports('./cli-main.ts').length).toBeGreaterThan(0);
  });
});
