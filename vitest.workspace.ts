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
 * (docs/benchmarks/ci.md), and these suites run three times in CI (Node 20, 22 and 24). Each file
 * still gets its own temporary folder and leak check (the setup file runs before every file).
 * Their tests mock no module, stub no global or environment variable and fake no timer
 * (`grep -rn "vi\.mock\|vi\.stub\|useFakeTimers" packages/<name>` is empty): a test file that needs
 * any of these belongs to an isolated project, or its project comes off this list. The pilot's and
 * the report's suites stay isolated.
 */
const SHARED_MODULES = new Set(['spec', 'worlds', 'scoring', 'stats', 'openrouter', 'chis', 'run']);

export default packages.map((name) => ({
  extends: true as const,
  test: {
    name,
    root: `packages/${name}`,
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    ...(SHARED_MODULES.has(name) ? { isolate: false } : {}),
  },
}));
