import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import * as main from './index';
import * as pure from './pure';

const sourceDirectory = dirname(fileURLToPath(import.meta.url));

/** Every module reachable from `file` through relative imports, with its bare imports. */
function importGraph(file: string, seen = new Map<string, string[]>()): Map<string, string[]> {
  if (seen.has(file)) return seen;
  const text = readFileSync(join(sourceDirectory, file), 'utf8');
  const specifiers = [...text.matchAll(/(?:import|export)[^'"]*?from\s+'([^']+)'/g)].map(
    (match) => match[1]!,
  );
  seen.set(
    file,
    specifiers.filter((specifier) => !specifier.startsWith('.')),
  );
  for (const specifier of specifiers.filter((s) => s.startsWith('./'))) {
    importGraph(`${specifier.slice(2)}.ts`, seen);
  }
  return seen;
}

describe('@chi/chis/pure', () => {
  it('reaches no Node built-in, so it runs in a browser', () => {
    const graph = importGraph('pure.ts');
    expect(graph.size).toBeGreaterThan(10);
    const external = new Set([...graph.values()].flat());
    expect([...external].sort()).toEqual([
      '@chi/spec',
      '@chi/spec/internal',
      'pure-rand/generator/xoroshiro128plus',
      'pure-rand/types/RandomGenerator',
      'zod',
    ]);
  });

  it('the Node entry does reach the file system (the check above can fail)', () => {
    const external = new Set([...importGraph('index.ts').values()].flat());
    expect(external.has('node:fs/promises')).toBe(true);
  });

  it('is the main entry minus the Node-only file I/O', () => {
    const nodeOnly = ['readChisTrajectories', 'readJsonl', 'streamJsonl'];
    expect(Object.keys(main).sort()).toEqual([...Object.keys(pure), ...nodeOnly].sort());
    const mainExports = new Map(Object.entries(main));
    for (const [name, value] of Object.entries(pure)) expect(mainExports.get(name)).toBe(value);
  });
});
