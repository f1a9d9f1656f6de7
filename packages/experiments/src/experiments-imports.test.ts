import { describe, expect, it } from 'vitest';
import { type BareImport, bareImportsOf } from '../../../tooling/vitest/module-graph';

// The built-in experiments are pure modules (docs/architecture.md, "Experiment modules"): a
// folder plans, renders, answers as a scripted system and scores from the seed and the prompt
// alone. Its static module graph, followed into the workspace packages it imports, must not reach
// a `node:` builtin other than `node:crypto` (hashing is computation, not I/O), vega or
// vega-lite, or pass through the runner, the report or a package that reads or writes files.
const IO_PACKAGES = /^packages\/(run|report|figures|chis|pilot|openrouter)\//;

function impurities(reached: readonly BareImport[]): string[] {
  return reached
    .filter(
      ({ specifier, chain }) =>
        (specifier.startsWith('node:') && specifier !== 'node:crypto') ||
        /^vega(-lite)?(\/|$)/.test(specifier) ||
        /^@chi\/(run|pilot|report|figures)(\/|$)/.test(specifier) ||
        chain.some((file) => IO_PACKAGES.test(file)),
    )
    .map(({ specifier, chain }) => `${chain.join(' -> ')} -> ${specifier}`);
}

describe('@chi/experiments', () => {
  it.each(['index.ts', 'internal.ts'])(
    '%s reaches no file system, no runner or report and no chart library',
    (entry) => {
      const entryPath = new URL(entry, import.meta.url).pathname;
      expect(impurities(bareImportsOf(entryPath, { builtins: true }))).toEqual([]);
    },
  );

  it('finds node:fs and the runner where they are, so the check can fail', () => {
    const pilot = new URL('../../pilot/src/index.ts', import.meta.url).pathname;
    const found = impurities(bareImportsOf(pilot, { builtins: true })).join('\n');
    expect(found).toContain('-> node:fs');
    expect(found).toContain('packages/run/src/');
  });
});
