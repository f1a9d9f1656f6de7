/**
 * The list of test projects. Vitest 4 ignores a `vitest.workspace.ts` on its own, so the root
 * `vitest.config.ts` imports this array into `test.projects` (see docs/development.md), and the
 * package names for its source aliases.
 */
export const packages = [
  'spec',
  'worlds',
  'scoring',
  'stats',
  'openrouter',
  'chis',
  'experiment',
  'run',
  'analysis',
  'experiments',
  'figures',
  'pilot',
  'report',
];

/**
 * Test projects outside `packages/`, each a private workspace package that is never packed: its
 * name is its folder. `integration` holds the tests that cross package boundaries (a pilot run
 * written as a release, viewed in Chromium, exported to Inspect, checked against the published JSON
 * Schemas): a package's own tests import only what its package.json declares
 * (scripts/test-imports.mjs checks it), and the pilot may not be a dependency of the report or the
 * spec. See integration/README.md.
 */
export const workspaces = ['integration'];

/**
 * Every project's test files share their worker's module cache instead of each loading vitest, zod
 * and the package graph afresh (Vitest's `isolate: false`): about a third less CPU for the seven
 * libraries, about 40 CPU s less for the report (docs/benchmarks/ci.md, "Third pass"). Each file
 * still gets its own temporary folder and leak check (the setup file runs before every file).
 * A shared file mocks no module, stubs no global or environment variable, fakes no timer, adds no
 * process listener it does not remove, and changes no working directory (the audit is in
 * docs/benchmarks/ci.md, "Third pass"). A test file that needs any of these is listed in
 * {@link ISOLATED}: it runs in its package's `<name>-isolated` project, in a fresh module graph.
 */
const ISOLATED: Readonly<Record<string, readonly string[]>> = {
  // vi.mock of @chi/worlds and of ./run-held-state: in a shared graph the mocks would reach every
  // later file of the worker, and the real modules (already loaded) would not be replaced.
  // score-log-passes: vi.mock of node:fs/promises, to count the opens of the attempt log.
  pilot: [
    'src/run-folder/run-create-worlds.test.ts',
    'src/runner/run-held-state.test.ts',
    'src/cli/score-log-passes.test.ts',
  ],
};

const INCLUDE = ['src/**/*.test.ts', 'test/**/*.test.ts'];

/**
 * Test files left out of this vitest run, from the repository root, comma-separated
 * (`CHI_TEST_EXCLUDE=packages/openrouter/test/soak.test.ts`): the Node matrix
 * (scripts/node-matrix.mjs) runs a subset under Node 24 this way. Vitest's own `--exclude`
 * does not reach the projects' file lists.
 */
// biome-ignore lint/suspicious/noUndeclaredEnvVars: a switch of the test run, not a turbo task input
const EXCLUDED = (process.env.CHI_TEST_EXCLUDE ?? '').split(',').filter((path) => path !== '');

/** A project's folder from the repository root: `packages/<name>` or a root workspace's own. */
function rootOf(name: string): string {
  return workspaces.includes(name) ? name : `packages/${name}`;
}

/** The excluded files of one package, relative to its folder. */
function excludedIn(name: string): string[] {
  const prefix = `${rootOf(name)}/`;
  return EXCLUDED.filter((path) => path.startsWith(prefix)).map((path) =>
    path.slice(prefix.length),
  );
}

/** One project: `files` narrows it to those test files, `isolate` gives each file its own graph. */
function project(name: string, files: readonly string[] | null, isolate: boolean) {
  const isolated = ISOLATED[name] ?? [];
  return {
    extends: true as const,
    test: {
      name: isolate ? `${name}-isolated` : name,
      root: rootOf(name),
      include: files === null ? INCLUDE : [...files],
      exclude: ['**/node_modules/**', ...excludedIn(name), ...(isolate ? [] : isolated)],
      isolate,
    },
  };
}

/**
 * Packages whose every file keeps its own module graph: none. The pilot shares its graph like the
 * others since the fourth pass: its files pay about 5 s each for a fresh worker and graph otherwise
 * (docs/benchmarks/ci.md, "Fourth pass", which also says how far shuffled shared runs got on a
 * loaded machine); its two mocking files run in `pilot-isolated`. Should a pilot file fail in the
 * whole run and pass alone, put 'pilot' back here.
 */
const ISOLATED_PACKAGES = new Set<string>([]);

export default [...packages, ...workspaces].flatMap((name) => {
  if (ISOLATED_PACKAGES.has(name)) {
    const whole = project(name, null, true);
    return [
      {
        ...whole,
        test: { ...whole.test, name, exclude: ['**/node_modules/**', ...excludedIn(name)] },
      },
    ];
  }
  const isolated = ISOLATED[name] ?? [];
  const shared = project(name, null, false);
  return isolated.length === 0 ? [shared] : [shared, project(name, isolated, true)];
});
