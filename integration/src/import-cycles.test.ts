import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importCyclesIn } from '../../tooling/vitest/module-graph';

// The files of every package import one another in one direction only (docs/architecture.md,
// "Import direction inside a package"). A package cannot import a package that imports it (the
// workspace's dependencies are acyclic), so the repository has no import cycle between files
// exactly when no package's own files form one.
const PACKAGES = join(import.meta.dirname, '..', '..', 'packages');

const packageSources = readdirSync(PACKAGES, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => join(PACKAGES, entry.name, 'src'));

describe('the import graph of every package', () => {
  it('covers every package of the workspace', () => {
    expect(packageSources.length).toBeGreaterThanOrEqual(13);
  });

  it.each(packageSources.map((src) => [src.split('/').at(-2) as string, src]))(
    '%s has no cycle between its files, type-only imports included',
    (_name, src) => {
      expect(importCyclesIn(src)).toEqual([]);
    },
  );
});

describe('importCyclesIn', () => {
  it('finds a ring of type-only imports, and nothing in a chain', () => {
    const fixture = join(import.meta.dirname, '__fixtures__', 'import-cycles');
    expect(importCyclesIn(join(fixture, 'ring'))).toEqual([
      [
        'integration/src/__fixtures__/import-cycles/ring/a.ts',
        'integration/src/__fixtures__/import-cycles/ring/b.ts',
        'integration/src/__fixtures__/import-cycles/ring/c.ts',
      ],
    ]);
    expect(importCyclesIn(join(fixture, 'chain'))).toEqual([]);
  });
});
