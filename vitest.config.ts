import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import projects, { packages as packageNames } from './vitest.workspace.ts';

/** The entries besides `.` a package may have (`@chi/<name>/internal`, `/test`, `/viewer`, `/inspect`, `/palette`). */
const SUBPATHS = ['internal', 'test', 'viewer', 'inspect', 'palette'];

// Tests run against each package's TypeScript source, so a change in @chi/spec is seen by every
// dependent test without a rebuild. The built `dist/` is exercised by the packaging check instead.
// Exact matches: a bare `@chi/run` alias would otherwise also rewrite `@chi/run/internal`. An entry
// is `src/<entry>.ts` or `src/<entry>/index.ts` (`@chi/experiment/test`); a package without it has
// no alias for it.
const alias = packageNames
  .flatMap((name) =>
    ['index', ...SUBPATHS].flatMap((entry) => {
      const find = entry === 'index' ? `@chi/${name}` : `@chi/${name}/${entry}`;
      const candidates = [
        `./packages/${name}/src/${entry}.ts`,
        `./packages/${name}/src/${entry}/index.ts`,
      ]
        .map((path) => fileURLToPath(new URL(path, import.meta.url)))
        .filter((path) => existsSync(path));
      return candidates.slice(0, 1).map((replacement) => ({ find, replacement }));
    }),
  )
  .map(({ find, replacement }) => ({ find: new RegExp(`^${find}$`), replacement }));

export default defineConfig({
  resolve: { alias },
  test: {
    projects,
    // Timeouts only catch a hang; they are not a speed check. Whole-run tests take seconds on an
    // idle machine and several times longer with both cores busy, so the limits are generous.
    testTimeout: 180_000,
    // One worker per core. Vitest's default in run mode is one fewer than the cores: a single
    // worker on a 2-core CI machine, which then leaves a core idle while a test waits on a child
    // process. Whole-run tests are CPU-bound, so more workers than cores would only add memory.
    maxWorkers: availableParallelism(),
    hookTimeout: 300_000,
    // Every test removes every temporary folder it creates: each run gets a fresh TMPDIR, each
    // test file a folder of its own inside it, and a file that leaves anything there fails.
    globalSetup: [fileURLToPath(new URL('./tooling/vitest/temp-dirs-global.ts', import.meta.url))],
    setupFiles: [fileURLToPath(new URL('./tooling/vitest/temp-dirs-file.ts', import.meta.url))],
  },
});
