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
import { execFileSync } from 'node:child_process';
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
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const packagesDir = join(root, 'packages');
const work = mkdtempSync(join(tmpdir(), 'chi-pack-check-'));
const tarballs = join(work, 'tarballs');
const unpacked = join(work, 'unpacked');
const project = join(work, 'project');
for (const dir of [tarballs, unpacked, project]) mkdirSync(dir);
const startedMs = Date.now();
const smokeNodes = process.argv.flatMap((arg, index, all) =>
  arg === '--smoke-node' && all[index + 1] !== undefined ? [all[index + 1]] : [],
);

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

const IMPORT_PATTERNS = [
  /\bfrom\s*["']([^"']+)["']/g,
  /\bimport\s*["']([^"']+)["']/g,
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

try {
  const files = {};
  for (const dirName of readdirSync(packagesDir).sort()) {
    const packageDir = join(packagesDir, dirName);
    if (!existsSync(join(packageDir, 'package.json'))) continue;
    const source = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8'));
    if (source.private === true) continue;
    const packed = JSON.parse(
      run('pnpm', ['pack', '--json', '--pack-destination', tarballs], packageDir),
    );
    if (typeof packed.filename !== 'string' || !existsSync(packed.filename)) {
      throw new Error(`pnpm pack produced no tarball for ${source.name}`);
    }
    files[source.name] = `file:${packed.filename}`;

    // Inspect the tarball as a user receives it.
    const into = join(unpacked, dirName);
    mkdirSync(into);
    run('tar', ['-xzf', packed.filename, '-C', into], root);
    const shipped = join(into, 'package');
    const manifest = JSON.parse(readFileSync(join(shipped, 'package.json'), 'utf8'));
    const where = `${manifest.name} (tarball)`;

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
}
