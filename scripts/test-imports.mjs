#!/usr/bin/env node
// Every workspace package imports only the workspace packages its package.json declares, in its
// tests and fixtures as in its shipped code (issue 34: "cross-package tests in an integration
// workspace that declares its dependencies"). A test of @chi/report that imports @chi/pilot makes
// the report's suite depend on the pilot, which depends on the report: such a test belongs in
// integration/, whose package.json names every package it imports.
//
// What counts as importing a workspace package:
// - a specifier `@chi/<name>` or `@chi/<name>/<entry>` in a static import or export, a side-effect
//   import, a dynamic `import()` or a `require()` (read with TypeScript's own pre-processor, so an
//   import written in a comment or a string does not count);
// - a relative specifier that leads into another workspace package's folder
//   (`../../packages/report/src/__fixtures__/temp-dir`).
// `tooling/` is not a package: any test may import its helpers. Files under node_modules, dist,
// verifier, test-artifacts and vendored test/fixtures are not read.
//
// Declared means named in `dependencies`, `devDependencies`, `peerDependencies` or
// `optionalDependencies`. Exit 0 when every import is declared, 1 otherwise (each undeclared
// import listed with its file), 2 on a workspace this script cannot read.
//
//   node scripts/test-imports.mjs              check (the lint step of `npm test` runs this)
//   node scripts/test-imports.mjs --root DIR   check the workspace at DIR (its own test)
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const rootFlag = process.argv.indexOf('--root');
const ROOT =
  rootFlag === -1
    ? fileURLToPath(new URL('..', import.meta.url))
    : resolve(process.argv[rootFlag + 1] ?? '.');

/** Folders never read: installed, built or vendored files, and test output. */
const SKIPPED = new Set(['node_modules', 'dist', 'verifier', 'test-artifacts', '.turbo']);

/** The workspace's package folders, from pnpm-workspace.yaml's `packages` list (`dir` or `dir/*`). */
function workspaceDirs() {
  const yaml = readFileSync(join(ROOT, 'pnpm-workspace.yaml'), 'utf8');
  const list = /^packages:\n((?:\s+-.*\n|\s*#.*\n)+)/m.exec(yaml);
  if (list === null) {
    console.error('test-imports: no packages list in pnpm-workspace.yaml');
    process.exit(2);
  }
  const globs = [...list[1].matchAll(/^\s+-\s+['"]?([^'"\s]+)['"]?\s*$/gm)].map((m) => m[1]);
  return globs.flatMap((glob) => {
    if (!glob.endsWith('/*')) return [join(ROOT, glob)];
    const parent = join(ROOT, glob.slice(0, -2));
    return readdirSync(parent)
      .sort()
      .map((name) => join(parent, name));
  });
}

/** Each workspace package: its folder, name and declared dependency names. */
function workspacePackages() {
  return workspaceDirs()
    .filter((dir) => existsSync(join(dir, 'package.json')))
    .map((dir) => {
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
      const declared = new Set([manifest.name]);
      for (const field of [
        'dependencies',
        'devDependencies',
        'peerDependencies',
        'optionalDependencies',
      ])
        for (const name of Object.keys(manifest[field] ?? {})) declared.add(name);
      return { dir, name: manifest.name, declared };
    });
}

/** The script and TypeScript files of a package folder, vendored and built files left out. */
function sourceFiles(dir) {
  const out = [];
  const walk = (at) => {
    for (const name of readdirSync(at).sort()) {
      const path = join(at, name);
      if (statSync(path).isDirectory()) {
        const vendored = name === 'fixtures' && at.endsWith(`${sep}test`);
        if (!SKIPPED.has(name) && !vendored) walk(path);
      } else if (/\.(c|m)?[jt]s$/.test(name) && !name.endsWith('.d.ts')) out.push(path);
    }
  };
  walk(dir);
  return out;
}

/** Every module specifier a file imports (static, side-effect, dynamic, `require`). */
function specifiersOf(file) {
  const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  return info.importedFiles.map((imported) => imported.fileName);
}

const packages = workspacePackages();
const byName = new Map(packages.map((pkg) => [pkg.name, pkg]));

/** The workspace package a specifier of `file` imports, or null (third-party, builtin, own). */
function importedPackage(file, specifier) {
  if (specifier.startsWith('.')) {
    const target = resolve(dirname(file), specifier);
    const owner = packages.find((pkg) => target === pkg.dir || target.startsWith(pkg.dir + sep));
    return owner?.name ?? null;
  }
  const scoped = /^(@[^/]+\/[^/]+)/.exec(specifier);
  const name = scoped?.[1] ?? specifier.split('/')[0];
  return byName.has(name) ? name : null;
}

const problems = [];
for (const pkg of packages)
  for (const file of sourceFiles(pkg.dir))
    for (const specifier of specifiersOf(file)) {
      const imported = importedPackage(file, specifier);
      if (imported !== null && !pkg.declared.has(imported))
        problems.push(
          `${relative(ROOT, file)}: imports '${specifier}' (${imported}), which ${relative(ROOT, pkg.dir)}/package.json does not declare`,
        );
    }

if (problems.length > 0) {
  console.error(problems.join('\n'));
  console.error(
    `test-imports: ${problems.length} undeclared workspace import(s). A test that needs a package its own package may not depend on belongs in integration/ (see docs/development.md).`,
  );
  process.exit(1);
}
console.log(`test-imports: ${packages.length} workspace packages import only what they declare`);
