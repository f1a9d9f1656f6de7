import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI_HEAP_GROWING_PERCENT, heapGrowthFlag } from './heap-growth';

describe('heapGrowthFlag', () => {
  it('bounds the heap growth at 50% when node was started without a growing factor', () => {
    expect(CLI_HEAP_GROWING_PERCENT).toBe(50);
    expect(heapGrowthFlag([])).toBe('--heap-growing-percent=50');
    expect(heapGrowthFlag(['--max-old-space-size=1024', '--enable-source-maps'])).toBe(
      '--heap-growing-percent=50',
    );
  });

  it("leaves the user's own growing factor standing, in every spelling node accepts", () => {
    for (const own of [
      '--heap-growing-percent=200',
      '--heap_growing_percent=10',
      '--heap-growing_percent=30',
      '--heap-growing-percent',
      '--no-heap-growing-percent',
    ])
      expect(heapGrowthFlag(['--max-old-space-size=1024', own]), own).toBeNull();
  });

  it('is not fooled by a flag that only starts like it', () => {
    expect(heapGrowthFlag(['--heap-growing-percentage=3'])).toBe('--heap-growing-percent=50');
  });
});

describe('the command-line entries', () => {
  // Both entry points bound the heap's growth before any work (the library never does).
  const entry = (path: string) => readFileSync(join(import.meta.dirname, '..', '..', path), 'utf8');

  it.each([
    ['chi', 'pilot/src/cli.ts'],
    ['code/verify.mjs', 'report/src/verify/verify-bin.ts'],
  ])('%s calls boundHeapGrowth() before it runs a command', (_name, path) => {
    const source = entry(path);
    const call = source.indexOf('\nboundHeapGrowth();\n');
    expect(call).toBeGreaterThan(0);
    // the first statement that runs a command: the verify CLI (not on its worker threads), or
    // chi's dispatch to its command
    const command = source.search(
      /\n(if \(!worker\) )?(process\.exitCode = await runVerifyCli|runChi|runCli|main)\(/,
    );
    expect(command).toBeGreaterThan(0);
    expect(call).toBeLessThan(command);
  });
});
