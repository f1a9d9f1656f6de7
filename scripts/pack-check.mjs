#!/usr/bin/env node
// Packaging proof: pack every built package, install the tarballs into a fresh project outside the
// workspace, and run a smoke program there under plain Node ESM and under `tsc --noEmit` with the
// shipped types. Run after `pnpm build` (CI: `pnpm run check`). It fails on
// - missing files: an `exports`/`main`/`types`/`bin` target absent from the tarball, or a file the
//   smoke program needs at run time (prompt templates, JSON Schemas) not shipped;
// - wrong exports: a named import of the smoke program that a package does not export (Node's ESM
//   linker and tsc both refuse it), or types that do not match what the code does;
// - a dependency only the workspace satisfies: a `workspace:` range left in a packed manifest, or a
//   bare import in shipped JavaScript or declarations whose package is not a declared
//   dependency or peer dependency. (The temporary project installs every @chi package at its top
//   level, so without this static check a package could silently resolve a sibling it never
//   declared.)
// Set CHI_KEEP_PACK_CHECK=1 to keep the temporary folder for inspection. `--smoke-node PATH`
// (repeatable) also runs the smoke program under that Node binary, from the same installed
// tarballs: scripts/node-matrix.mjs packs and installs once for all the Node versions it checks.
// It also lints every tarball it packed with publint (`--strict`) and attw (`--profile esm-only`),
// the packages' `lint` scripts, on the same tarball instead of packing each package twice more
// (publint and `attw --pack` pack on their own); `--no-lint` leaves that out (the Node matrix: the
// lint is a static check of the tarball, the same under every Node version).
// `--tarballs-from DIR` checks the tarballs in DIR instead of packing: `check` passes the ones
// docs-check's run of the README's install block packed (`--share-tarballs DIR`), with the same
// pnpm in the same checkout, byte for byte what this script's own `pnpm pack` gives (docs/benchmarks/
// ci.md, "Seventh pass"). Every package must have its tarball there (`<name>-<version>.tgz`, the
// name and version inside checked as well); DIR is removed afterwards.
import { execFileSync, spawn } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { builtinModules } from 'node:module';
import { availableParallelism, tmpdir } from 'node:os';
import { delimiter, join, relative, resolve } from 'node:path';
import { pnpmCommand } from './pnpm-command.mjs';

const pnpm = pnpmCommand();

const root = resolve(import.meta.dirname, '..');
const packagesDir = join(root, 'packages');
const work = mkdtempSync(join(tmpdir(), 'chi-pack-check-'));
const tarballs = join(work, 'tarballs');
const unpacked = join(work, 'unpacked');
const project = join(work, 'project');
for (const dir of [tarballs, unpacked, project]) mkdirSync(dir);
const startedMs = Date.now();
// More Node binaries for the smoke program: `--smoke-node PATH` (repeatable), and
// CHI_PACK_SMOKE_NODES (paths separated by the platform's delimiter), which .ci/run sets to the
// Node 22 and 24 binaries of scripts/node-matrix.mjs so that `npm test`'s one packaging check
// covers every Node version CI checks.
const smokeNodes = [
  ...process.argv.flatMap((arg, index, all) =>
    arg === '--smoke-node' && all[index + 1] !== undefined ? [all[index + 1]] : [],
  ),
  // biome-ignore lint/suspicious/noUndeclaredEnvVars: a switch of this script, not a turbo task input
  ...(process.env.CHI_PACK_SMOKE_NODES ?? '').split(delimiter).filter(Boolean),
];
const lintTarballs = !process.argv.includes('--no-lint');
const fromAt = process.argv.indexOf('--tarballs-from');
const tarballsFrom = fromAt === -1 ? null : resolve(process.argv[fromAt + 1] ?? '');
// Each package's `lint` script (turbo's lint task, `pnpm lint`) is this pair run in its folder; this
// check runs the same pair on the tarball it packed. A package whose script says otherwise fails
// here, so the two cannot drift apart unnoticed.
const LINT_SCRIPT = 'publint --strict && attw --pack . --profile esm-only';
const bin = (name) => join(root, 'node_modules', '.bin', name);
const lintCommands = (tarball) => [
  [bin('publint'), ['run', tarball, '--strict']],
  [bin('attw'), [tarball, '--profile', 'esm-only', '--no-color', '--no-emoji']],
];

function run(command, args, cwd) {
  try {
    return execFileSync(command, args, {
      cwd,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, npm_config_fund: 'false', npm_config_audit: 'false' },
      maxBuffer: 64 * 1024 * 1024,
    });
  } catch (error) {
    // tsc and the smoke program report on stdout: show it, then fail with the command line.
    if (typeof error.stdout === 'string' && error.stdout !== '') process.stderr.write(error.stdout);
    throw new Error(
      `pack-check: \`${[command, ...args].join(' ')}\` failed in ${cwd} (exit ${error.status ?? error.signal})`,
    );
  }
}

const problems = [];

/** Runs one command to its end; resolves with its exit status and everything it printed. */
function runQuietly(command, args) {
  return new Promise((resolveRun) => {
    const child = spawn(command, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    child.on('error', (error) => resolveRun({ status: null, output: `${output}${error.message}` }));
    child.on('close', (status) => resolveRun({ status, output }));
  });
}

/**
 * publint and attw on every tarball, as many at a time as there are cores (each is one
 * single-threaded process). Every failure is printed with its output and counted as a problem.
 */
async function lintAll(packed) {
  const queue = packed.flatMap(({ name, tarball }) =>
    lintCommands(tarball).map(([command, args]) => ({ name, command, args })),
  );
  const worker = async () => {
    for (let job = queue.shift(); job !== undefined; job = queue.shift()) {
      const result = await runQuietly(job.command, job.args);
      const tool = job.command.split('/').pop();
      if (result.status === 0) continue;
      process.stderr.write(result.output);
      problems.push(`${job.name} (tarball): ${tool} failed (exit ${result.status})`);
    }
  };
  await Promise.all(Array.from({ length: Math.min(availableParallelism(), 4) }, worker));
  if (problems.length === 0)
    console.log(
      `pack-check: publint --strict and attw --profile esm-only pass on ${packed.length} tarballs`,
    );
}

/** Every path a manifest promises: exports targets (conditions and subpaths), main, types, bin. */
function promisedFiles(manifest) {
  const targets = [];
  const walk = (value) => {
    if (typeof value === 'string') targets.push(value);
    else if (value !== null && typeof value === 'object')
      for (const child of Object.values(value)) walk(child);
  };
  walk(manifest.exports);
  for (const field of ['main', 'types', 'module'])
    if (typeof manifest[field] === 'string') targets.push(manifest[field]);
  if (typeof manifest.bin === 'string') targets.push(manifest.bin);
  else if (manifest.bin !== undefined) targets.push(...Object.values(manifest.bin));
  return targets;
}

/** The package name of a bare import specifier (`@scope/name/sub` -> `@scope/name`), or null. */
function packageOf(specifier) {
  if (specifier.startsWith('.') || specifier.startsWith('/') || specifier.startsWith('node:'))
    return null;
  if (builtinModules.includes(specifier.split('/')[0])) return null;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

// `(?<![-\w.])`: an option name such as `'plan-from'` or a property `.from` is not an import;
// `(?<!["'])`: neither is a string that spells the word (`call(id, 'import', state)`).
const IMPORT_PATTERNS = [
  /(?<![-\w.])from\s*["']([^"']+)["']/g,
  /(?<![-\w.'"])import\s*["']([^"']+)["']/g,
  /\bimport\s*\(\s*["']([^"']+)["']\s*\)/g,
  /\brequire\s*\(\s*["']([^"']+)["']\s*\)/g,
];

function listFiles(dir) {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath ?? entry.path, entry.name));
}

/**
 * `tsc --noEmit` on smoke.ts with the house options and `skipLibCheck: false`, so every shipped
 * declaration file is checked too, ours included.
 */
function typecheckSmoke() {
  const tsc = join(project, 'node_modules', '.bin', 'tsc');
  let output = '';
  try {
    output = execFileSync(tsc, ['-p', 'tsconfig.json', '--pretty', 'false'], {
      cwd: project,
      encoding: 'utf8',
    });
  } catch (error) {
    output = `${error.stdout ?? ''}${error.stderr ?? ''}`;
  }
  if (output.trim() !== '') {
    throw new Error(
      `pack-check: smoke.ts does not typecheck against the shipped types:\n${output}`,
    );
  }
  console.log('pack smoke (TypeScript): smoke.ts typechecks against the shipped declarations');
}

/**
 * The tarball of one package: packed here with pnpm, or (`--tarballs-from DIR`) the one packed
 * before into DIR under pnpm's file name for it.
 */
function tarballOf(source, packageDir) {
  if (tarballsFrom !== null) {
    const filename = join(
      tarballsFrom,
      `${source.name.replace(/^@/, '').replace('/', '-')}-${source.version}.tgz`,
    );
    if (!existsSync(filename))
      throw new Error(
        `pack-check: --tarballs-from ${tarballsFrom} holds no tarball of ${source.name} (${filename}); docs-check --share-tarballs leaves them there`,
      );
    return { filename };
  }
  const packed = JSON.parse(
    run(
      pnpm.command,
      [...pnpm.prefix, 'pack', '--json', '--pack-destination', tarballs],
      packageDir,
    ),
  );
  if (typeof packed.filename !== 'string' || !existsSync(packed.filename)) {
    throw new Error(`pnpm pack produced no tarball for ${source.name}`);
  }
  return packed;
}

try {
  const files = {};
  const packedTarballs = [];
  for (const dirName of readdirSync(packagesDir).sort()) {
    const packageDir = join(packagesDir, dirName);
    if (!existsSync(join(packageDir, 'package.json'))) continue;
    const source = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8'));
    if (source.private === true) continue;
    const packed = tarballOf(source, packageDir);
    files[source.name] = `file:${packed.filename}`;
    packedTarballs.push({ name: source.name, tarball: packed.filename });
    if (lintTarballs && source.scripts?.lint !== LINT_SCRIPT)
      problems.push(
        `${source.name}: its lint script is ${JSON.stringify(source.scripts?.lint)}, but pack-check lints the tarball with ${JSON.stringify(LINT_SCRIPT)}: change both together`,
      );

    // Inspect the tarball as a user receives it.
    const into = join(unpacked, dirName);
    mkdirSync(into);
    run('tar', ['-xzf', packed.filename, '-C', into], root);
    const shipped = join(into, 'package');
    const manifest = JSON.parse(readFileSync(join(shipped, 'package.json'), 'utf8'));
    const where = `${manifest.name} (tarball)`;
    if (manifest.name !== source.name || manifest.version !== source.version)
      problems.push(
        `${where}: ${packed.filename} holds ${manifest.name}@${manifest.version}, not ${source.name}@${source.version}`,
      );

    for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies']) {
      for (const [name, range] of Object.entries(manifest[field] ?? {})) {
        if (String(range).startsWith('workspace:'))
          problems.push(`${where}: ${field}.${name} is still ${range}`);
      }
    }
    for (const target of promisedFiles(manifest)) {
      if (target.includes('*')) continue; // subpath patterns: checked by the smoke program's imports
      if (!existsSync(join(shipped, target)))
        problems.push(`${where}: the manifest points at ${target}, which is not in the tarball`);
    }

    const declared = new Set([
      manifest.name,
      ...Object.keys(manifest.dependencies ?? {}),
      ...Object.keys(manifest.peerDependencies ?? {}),
      ...Object.keys(manifest.optionalDependencies ?? {}),
    ]);
    for (const file of listFiles(shipped)) {
      if (!/\.(?:m?js|cjs|d\.m?ts|d\.cts)$/.test(file)) continue;
      // @chi/report's verifier (and @chi/pilot's divergence verifier, built the same way) is a
      // self-contained bundle (every dependency inlined; vega's optional `import('canvas')` sits in
      // a try/catch, and bundled text quotes `from "..."`): scripts/release-from-copy.mjs and
      // packages/pilot/src/divergence/release-copy.test.ts prove that each runs alone, from a copy.
      if (
        (manifest.name === '@chi/report' || manifest.name === '@chi/pilot') &&
        relative(shipped, file) === 'verifier/verify.mjs'
      )
        continue;
      const text = readFileSync(file, 'utf8');
      for (const pattern of IMPORT_PATTERNS) {
        for (const match of text.matchAll(pattern)) {
          const name = packageOf(match[1]);
          if (name === null || declared.has(name)) continue;
          const inDev = Object.hasOwn(manifest.devDependencies ?? {}, name);
          problems.push(
            `${where}: ${relative(shipped, file)} imports ${JSON.stringify(match[1])}, but ${name} is not in dependencies or peerDependencies${inDev ? ' (only in devDependencies: the workspace satisfies it, a user install does not)' : ''}`,
          );
        }
      }
    }
  }
  if (lintTarballs) await lintAll(packedTarballs);
  if (problems.length > 0)
    throw new Error(
      `pack-check found ${problems.length} packaging problem(s):\n- ${[...new Set(problems)].join('\n- ')}`,
    );

  const rootManifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  writeFileSync(
    join(project, 'package.json'),
    `${JSON.stringify(
      {
        name: 'chi-pack-smoke',
        private: true,
        type: 'module',
        dependencies: { ...files, zod: '4.6.7' },
        devDependencies: {
          typescript: rootManifest.devDependencies.typescript,
          '@types/node': rootManifest.devDependencies['@types/node'],
        },
        // The tarballs depend on each other by version (pnpm pack rewrote `workspace:^`); point
        // those at the local tarballs too, so nothing comes from the registry under our names.
        overrides: files,
      },
      null,
      2,
    )}\n`,
  );
  cpSync(join(root, 'tooling', 'pack-smoke'), project, { recursive: true });
  console.log(`pack-check: installing ${Object.keys(files).length} tarballs into ${project}`);
  run(
    'npm',
    ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'],
    project,
  );
  process.stdout.write(run('node', ['smoke.mjs'], project));
  for (const node of smokeNodes) {
    const version = run(node, ['--version'], project).trim();
    console.log(`pack smoke under Node ${version}:`);
    process.stdout.write(run(node, ['smoke.mjs'], project));
  }
  typecheckSmoke();
  console.log(
    `pack-check: every package installs from its tarball, runs under Node ESM and typechecks with its shipped types (${((Date.now() - startedMs) / 1000).toFixed(1)} s)`,
  );
} catch (error) {
  // One readable failure, no stack: the message names the package, the file and what is wrong.
  console.error(error instanceof Error ? error.message : String(error));
  process.exitCode = 1;
} finally {
  // biome-ignore lint/suspicious/noUndeclaredEnvVars: a debugging switch of this script, not a turbo task input
  if (process.env.CHI_KEEP_PACK_CHECK === undefined) rmSync(work, { recursive: true, force: true });
  else console.log(`pack-check: kept ${work}`);
  if (tarballsFrom !== null) rmSync(tarballsFrom, { recursive: true, force: true });
}
