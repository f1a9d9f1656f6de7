import { describe, expect, it } from 'vitest';
import { bareImportsOf } from '../../../../tooling/vitest/module-graph';

const CHARTS = /^vega(-lite)?(\/|$)/;

function chartImports(file: string): string[] {
  return bareImportsOf(new URL(file, import.meta.url).pathname)
    .filter(({ specifier }) => CHARTS.test(specifier))
    .map(({ specifier, chain }) => `${chain.join(' -> ')} -> ${specifier}`);
}

// `chi view` is the `chi` executable's cli.ts plus view-cli.ts (cli-quick.ts, and from it
// cli-main.ts, are imported on demand for every other command): neither may reach the release
// writer's chart libraries. Nor may cli-quick.ts, which answers `chi --help`, `version` and
// `templates` (cli-quick.test.ts checks what `chi --help` loads at run time).
describe('chi view module graph', () => {
  it('cli.ts and view-cli.ts never statically import vega', () => {
    expect([...chartImports('../cli.ts'), ...chartImports('./view-cli.ts')]).toEqual([]);
  });

  it('cli-quick.ts never statically imports vega', () => {
    expect(chartImports('./cli-quick.ts')).toEqual([]);
  });

  it('cli-main.ts does (the check can fail)', () => {
    expect(chartImports('./cli-main.ts').length).toBeGreaterThan(0);
  });
});
