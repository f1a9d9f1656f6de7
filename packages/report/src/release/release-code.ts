import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, sep } from 'node:path';
import { compareUtf8 } from '@chi/analysis/internal';
import { InvalidArgumentError } from '@chi/spec';
import { REPORT_PACKAGE_DIR } from '../package-dir';
import { packTarGzip, readTarGzip } from './tar-gzip';

/** Where a release keeps the code that made it. */
export const RELEASE_CODE_DIR = 'code/';
/** The self-contained verifier a release's README runs with `node`. */
export const RELEASE_VERIFIER_FILE = 'code/verify.mjs';
/** The command the release README gives, run from inside the release folder. */
export const RELEASE_VERIFY_COMMAND = 'node code/verify.mjs .';

/** Whether a release path belongs to the release's code (an input of verify, not derived). */
export function isCodePath(path: string): boolean {
  return path.startsWith(RELEASE_CODE_DIR);
}

/** The code files of a release: `code/...` path -> exact bytes. */
export type ReleaseCode = ReadonlyMap<string, Uint8Array>;

/** One packed package as `release.json` lists it. */
export interface PackedPackageEntry {
  readonly name: string;
  readonly version: string;
  readonly file: string;
  /** Hex SHA-256 of the tarball. */
  readonly sha256: string;
  /** Subresource-integrity string as npm writes it: `sha512-<base64>`. */
  readonly integrity: string;
}

/** The `code` section of `release.json`. */
export interface ReleaseCodeSection {
  readonly packages: readonly PackedPackageEntry[];
  readonly verifier: {
    readonly file: string;
    readonly sha256: string;
    readonly integrity: string;
    readonly command: string;
  } | null;
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const integrity = (bytes: Uint8Array) =>
  `sha512-${createHash('sha512').update(bytes).digest('base64')}`;

/** The npm file name of a packed package: `@chi/report@0.1.0` -> `chi-report-0.1.0.tgz`. */
export function tarballName(name: string, version: string): string {
  return `${name.replace(/^@/, '').replace('/', '-')}-${version}.tgz`;
}

interface PackageJson {
  readonly name?: unknown;
  readonly version?: unknown;
  readonly files?: unknown;
  readonly [field: string]: unknown;
}

function readPackageJson(dir: string): PackageJson {
  const path = join(dir, 'package.json');
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as PackageJson;
  } catch (error) {
    throw new InvalidArgumentError(
      path,
      `expected a readable package.json: ${(error as Error).message}`,
    );
  }
}

const DEPENDENCY_FIELDS = [
  'dependencies',
  'devDependencies',
  'peerDependencies',
  'optionalDependencies',
] as const;

/**
 * The folders of a package and of every `@chi/*` package it depends on at run time, followed
 * transitively and resolved the way Node resolves them (a pnpm workspace or an npm install alike),
 * sorted by package name.
 */
export function chiPackageDirs(rootPackageDir: string): string[] {
  const found = new Map<string, string>();
  const visit = (dir: string) => {
    const pkg = readPackageJson(dir);
    const name = String(pkg.name);
    if (found.has(name)) return;
    found.set(name, dir);
    const dependencies = (pkg.dependencies ?? {}) as Record<string, string>;
    const require = createRequire(join(dir, 'package.json'));
    for (const dependency of Object.keys(dependencies).filter((d) => d.startsWith('@chi/'))) {
      visit(dirname(require.resolve(`${dependency}/package.json`)));
    }
  };
  visit(rootPackageDir);
  return [...found.entries()].sort(([a], [b]) => compareUtf8(a, b)).map(([, dir]) => dir);
}

function walk(dir: string, root: string, into: string[]): void {
  for (const name of readdirSync(dir).sort()) {
    if (name === 'node_modules') continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path, root, into);
    else into.push(relative(root, path).split(sep).join('/'));
  }
}

/**
 * The files `npm pack` would include, for the `files` patterns our packages use: a folder or file
 * name includes it, `!<folder>/**\/*<suffix>` excludes matching files; `package.json` and root
 * README/LICENSE files are always in. Any other pattern is refused rather than guessed.
 */
function packedFiles(dir: string, files: unknown): string[] {
  if (!Array.isArray(files) || files.some((entry) => typeof entry !== 'string'))
    throw new InvalidArgumentError(`${dir}/package.json`, 'expected a "files" array of strings');
  const include = new Set<string>(['package.json']);
  for (const name of readdirSync(dir))
    if (/^(readme|license|licence)(\..*)?$/i.test(name)) include.add(name);
  const excludes: { folder: string; suffix: string }[] = [];
  for (const pattern of files as string[]) {
    const negated = /^!([^*]+)\/\*\*\/\*([^*/]*)$/.exec(pattern);
    if (negated !== null) {
      excludes.push({ folder: `${negated[1]}/`, suffix: negated[2] ?? '' });
      continue;
    }
    if (/[*!?[\]{}]/.test(pattern))
      throw new InvalidArgumentError(
        `${dir}/package.json`,
        `unsupported "files" pattern ${pattern}`,
      );
    const path = join(dir, pattern);
    if (!existsSync(path)) continue;
    if (statSync(path).isDirectory()) {
      const found: string[] = [];
      walk(path, dir, found);
      for (const file of found) include.add(file);
    } else include.add(pattern.replace(/^\.\//, ''));
  }
  return [...include]
    .filter((file) => !excludes.some((x) => file.startsWith(x.folder) && file.endsWith(x.suffix)))
    .sort(compareUtf8);
}

/** Replaces `workspace:` ranges the way pnpm publishes them (`workspace:^` -> `^1.2.3`). */
function rewriteWorkspaceRanges(
  pkg: PackageJson,
  versions: ReadonlyMap<string, string>,
): PackageJson {
  const out: Record<string, unknown> = { ...pkg };
  for (const field of DEPENDENCY_FIELDS) {
    const ranges = pkg[field] as Record<string, string> | undefined;
    if (ranges === undefined) continue;
    out[field] = Object.fromEntries(
      Object.entries(ranges).map(([name, range]) => {
        if (!range.startsWith('workspace:')) return [name, range];
        const version = versions.get(name);
        if (version === undefined)
          throw new InvalidArgumentError(
            `${String(pkg.name)} ${field}.${name}`,
            `expected a packed workspace package for ${range}, found none`,
          );
        const spec = range.slice('workspace:'.length);
        return [
          name,
          spec === '*' ? version : spec === '^' || spec === '~' ? `${spec}${version}` : spec,
        ];
      }),
    );
  }
  return out;
}

/**
 * Packs one package folder as `npm pack`/`pnpm pack` would publish it: the `files` it declares
 * under `package/`, `workspace:` ranges rewritten to the packed versions. Reproducible: the same
 * folder gives the same bytes.
 */
export function packPackageDir(
  dir: string,
  versions: ReadonlyMap<string, string>,
): { name: string; version: string; bytes: Uint8Array } {
  const pkg = readPackageJson(dir);
  if (typeof pkg.name !== 'string' || typeof pkg.version !== 'string')
    throw new InvalidArgumentError(`${dir}/package.json`, 'expected a name and a version');
  const raw = readFileSync(join(dir, 'package.json'), 'utf8');
  const manifest = raw.includes('"workspace:')
    ? `${JSON.stringify(rewriteWorkspaceRanges(pkg, versions), null, 2)}\n`
    : raw;
  const entries = packedFiles(dir, pkg.files).map((file) => ({
    path: `package/${file}`,
    bytes:
      file === 'package.json'
        ? new TextEncoder().encode(manifest)
        : new Uint8Array(readFileSync(join(dir, file))),
  }));
  return { name: pkg.name, version: pkg.version, bytes: packTarGzip(entries) };
}

/** Where the build puts the self-contained verifier (`tsup.config.ts`); same path from src/ and dist/. */
export const DEFAULT_VERIFIER_PATH = join(REPORT_PACKAGE_DIR, 'verifier', 'verify.mjs');

/** Options of {@link packReleaseCode}. */
export interface PackReleaseCodeOptions {
  /** The package that ran the pipeline (e.g. `@chi/pilot`'s folder); its `@chi/*` closure is packed. */
  readonly rootPackageDir: string;
  /** The bundled verifier; defaults to the one built into this package. */
  readonly verifierPath?: string;
}

/**
 * The code of a release: a tarball of every `@chi/*` package that generated, scored and analysed
 * it (packed from the installed package folders) and the self-contained verifier.
 */
export function packReleaseCode(options: PackReleaseCodeOptions): ReleaseCode {
  const dirs = chiPackageDirs(options.rootPackageDir);
  const versions = new Map(
    dirs.map((dir) => {
      const pkg = readPackageJson(dir);
      return [String(pkg.name), String(pkg.version)] as const;
    }),
  );
  const files = new Map<string, Uint8Array>();
  for (const dir of dirs) {
    const packed = packPackageDir(dir, versions);
    files.set(
      `${RELEASE_CODE_DIR}packages/${tarballName(packed.name, packed.version)}`,
      packed.bytes,
    );
  }
  const verifierPath = options.verifierPath ?? DEFAULT_VERIFIER_PATH;
  if (!existsSync(verifierPath))
    throw new InvalidArgumentError(
      'verifierPath',
      `expected the bundled verifier at ${verifierPath}; build @chi/report first`,
    );
  files.set(RELEASE_VERIFIER_FILE, new Uint8Array(readFileSync(verifierPath)));
  return new Map([...files.entries()].sort(([a], [b]) => compareUtf8(a, b)));
}

/**
 * The `code` section of `release.json`, computed from the code files themselves: each tarball's
 * name and version as its own `package/package.json` states them, and the hashes of its bytes.
 * Null for a release without code.
 */
export function describeReleaseCode(code: ReleaseCode): ReleaseCodeSection | null {
  if (code.size === 0) return null;
  const packages: PackedPackageEntry[] = [];
  let verifier: ReleaseCodeSection['verifier'] = null;
  for (const [file, bytes] of code) {
    if (file === RELEASE_VERIFIER_FILE) {
      verifier = {
        file,
        sha256: sha256(bytes),
        integrity: integrity(bytes),
        command: RELEASE_VERIFY_COMMAND,
      };
      continue;
    }
    let pkg: PackageJson;
    try {
      const entry = readTarGzip(bytes).find((e) => e.path === 'package/package.json');
      pkg = JSON.parse(new TextDecoder().decode(entry?.bytes)) as PackageJson;
    } catch (error) {
      throw new InvalidArgumentError(
        file,
        `expected an npm package tarball: ${(error as Error).message}`,
      );
    }
    packages.push({
      name: String(pkg.name),
      version: String(pkg.version),
      file,
      sha256: sha256(bytes),
      integrity: integrity(bytes),
    });
  }
  return { packages, verifier };
}
