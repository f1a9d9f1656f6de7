/**
 * The list of test projects. Vitest 4 ignores a `vitest.workspace.ts` on its own, so the root
 * `vitest.config.ts` imports this array into `test.projects` (see docs/development.md).
 */
const packages = [
  'spec',
  'worlds',
  'scoring',
  'stats',
  'openrouter',
  'chis',
  'run',
  'pilot',
  'report',
];

/**
 * The libraries' test files share their worker's module cache instead of each loading vitest, zod
 * and the package graph afresh (Vitest's `isolate: false`): about a third less CPU for the seven
 * (docs/benchmarks/ci.md), and these suites run twice in CI (Node 20 and 24). Each file still gets
 * its own temporary folder and leak check (the setup file runs before every file).
 * Their tests mock no module, stub no global or environment variable and fake no timer
 * (`grep -rn "vi\.mock\|vi\.stub\|useFakeTimers" packages/<name>` is empty): a test file that needs
 * any of these belongs to an isolated project, or its project comes off this list. The pilot's and
 * the report's suites stay isolated (two of the pilot's files mock modules; sharing the rest is
 * a candidate in docs/benchmarks/ci.md, not yet run whole).
 */
const SHARED_MODULES = new Set(['spec', 'worlds', 'scoring', 'stats', 'openrouter', 'chis', 'run']);

const INCLUDE = ['src/**/*.test.ts', 'test/**/*.test.ts'];

/**
 * Test files left out of this vitest run, from the repository root, comma-separated
 * (`CHI_TEST_EXCLUDE=packages/openrouter/test/soak.test.ts`): the Node matrix
 * (scripts/node-matrix.mjs) runs a subset under Node 24 this way. Vitest's own `--exclude`
 * does not reach the projects' file lists.
 */
// biome-ignore lint/suspicious/noUndeclaredEnvVars: a switch of the test run, not a turbo task input
const EXCLUDED = (process.env.CHI_TEST_EXCLUDE ?? '').split(',').filter((path) => path !== '');

/** The excluded files of one package, relative to its folder. */
function excludedIn(name: string): string[] {
  const prefix = `packages/${name}/`;
  return EXCLUDED.filter((path) => path.startsWith(prefix)).map((path) =>
    path.slice(prefix.length),
  );
}

export default packages.map((name) => ({
  extends: true as const,
  test: {
    name,
    root: `packages/${name}`,
    include: INCLUDE,
    exclude: ['**/node_modules/**', ...excludedIn(name)],
    ...(SHARED_MODULES.has(name) ? { isolate: false } : {}),
  },
}));
