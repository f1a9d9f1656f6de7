import { describe, expect, it } from 'vitest';
import { type BareImport, bareImportsOf } from '../../../tooling/vitest/module-graph';

// The analysis is a pure function of scored data (docs/architecture.md, "The report's seams"):
// code that only computes numbers must not load the file system, the run-folder reader or the
// chart libraries. Each entry's static module graph is followed into the workspace packages it
// imports; none of it may reach a `node:` builtin other than `node:crypto` (hashing is
// computation, not I/O), vega or vega-lite, or pass through a package that reads or writes files.
const IO_PACKAGES = /^packages\/(run|report|figures|chis|pilot|openrouter)\//;

function impurities(reached: readonly BareImport[]): string[] {
  return reached
    .filter(
      ({ specifier, chain }) =>
        (specifier.startsWith('node:') && specifier !== 'node:crypto') ||
        /^vega(-lite)?(\/|$)/.test(specifier) ||
        chain.some((file) => IO_PACKAGES.test(file)),
    )
    .map(({ specifier, chain }) => `${chain.join(' -> ')} -> ${specifier}`);
}

describe('@chi/analysis', () => {
  for (const entry of ['index.ts', 'internal.ts', 'test/index.ts']) {
    it(`${entry} reaches no file system, no I/O package and no chart library`, () => {
      const entryPath = new URL(entry, import.meta.url).pathname;
      expect(impurities(bareImportsOf(entryPath, { builtins: true }))).toEqual([]);
    });
  }

  it('finds node:fs, vega and the run reader where they are, so the check can fail', () => {
    const report = new URL('../../report/src/index.ts', import.meta.url).pathname;
    const found = impurities(bareImportsOf(report, { builtins: true })).join('\n');
    expect(found).toContain('-> node:fs');
    expect(found).toContain('-> vega');
    expect(found).toContain('packages/run/src/');
  });
});
