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

export default packages.map((name) => ({
  extends: true as const,
  test: {
    name,
    root: `packages/${name}`,
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
  },
}));
