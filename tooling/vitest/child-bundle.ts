/**
 * The tests that must start a process of their own (`chi` stopped by a signal, killed at a
 * failpoint, run as a shard; a few fixture scripts) start a bundle of the script's TypeScript
 * sources, built once per vitest run, instead of `node --import tsx <script>.ts`: tsx's loader
 * reads, decodes and compiles the whole source graph again in every child, 2.5-3.1 CPU s per `chi`
 * start against about 0.3 s for a bundle (docs/benchmarks/ci.md, "Sixth pass").
 *
 * What the child runs is what tsx ran, from the same sources:
 * - esbuild bundles the script's graph of workspace sources, with `@chi/*` resolved to each
 *   package's `src/` through the tsconfig paths tsx used (never a possibly stale `dist/`: a build
 *   that reads anything under a `dist/` folder fails);
 * - third-party packages are not bundled: each import is resolved the way Node resolves it from
 *   the importing source file (the `import` and `node` conditions) and left as an import of that
 *   file's URL, so Node loads the very files it loaded under tsx;
 * - every `import.meta.url` (and `.dirname`, `.filename`) of a source file becomes that file's
 *   own URL, so the sources still find their package files (`../package.json`, `../prompts/`, the
 *   report's `../verifier/verify.mjs`, the release's packed code) as they do under tsx;
 * - class and function names are kept (`keepNames`) and `sideEffects` fields are ignored, so no
 *   error's name changes and no module's top-level code is dropped;
 * - source maps are on, and the child gets `--enable-source-maps` (tsx turns them on too), so a
 *   stack trace still names the source file and line.
 *
 * The bundle is made on first use by any test file of the run (`sharedFolder`: an atomic lock,
 * every other worker waits for it) in the run's temporary root, which the global teardown
 * removes. A build that fails fails every test that asks for it, with esbuild's errors; there is
 * no fallback to tsx or to `dist/`.
 */
import { readFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { basename, dirname, extname, join, relative, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build, type Plugin, stop } from 'esbuild';
import { sharedFolder } from './shared-folder';

const REPOSITORY = fileURLToPath(new URL('../../', import.meta.url));

/** Marks the resolve calls this plugin makes itself, so it does not answer them again. */
const OWN_RESOLVE = Symbol('child-bundle resolve');

/**
 * Leaves every third-party import to Node: resolved from its importer as Node would (esbuild's
 * resolver with the `import`/`require` and `node` conditions only), emitted as that file's URL.
 * `@chi/*` and relative imports are bundled (tsconfig paths take `@chi/*` to the sources).
 */
const thirdPartyExternal: Plugin = {
  name: 'third-party-external',
  setup(bundler) {
    bundler.onResolve({ filter: /^[^./]/ }, async (args) => {
      if (args.pluginData === OWN_RESOLVE || args.path.startsWith('@chi/')) return undefined;
      if (isBuiltin(args.path)) return { path: args.path, external: true };
      const resolved = await bundler.resolve(args.path, {
        kind: args.kind,
        importer: args.importer,
        resolveDir: args.resolveDir,
        pluginData: OWN_RESOLVE,
      });
      if (resolved.errors.length > 0) return { errors: resolved.errors };
      return { path: pathToFileURL(resolved.path).href, external: true };
    });
  },
};

/** Each source file's `import.meta.url`, `.dirname` and `.filename`, as they are under tsx. */
const ownImportMeta: Plugin = {
  name: 'own-import-meta',
  setup(bundler) {
    bundler.onLoad({ filter: /\.[cm]?[jt]s$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      const values: Record<string, string> = {
        url: pathToFileURL(args.path).href,
        dirname: dirname(args.path),
        filename: args.path,
      };
      const contents = source.replace(
        /\bimport\.meta\.(url|dirname|filename)\b/g,
        (_, key: string) => JSON.stringify(values[key]),
      );
      const extension = extname(args.path);
      return { contents, loader: extension.includes('t') ? 'ts' : 'js' };
    });
  },
};

/** Builds `entry` (an absolute path) into `folder`; returns the bundle's path. */
async function bundle(entry: string, folder: string): Promise<string> {
  const outfile = join(folder, `${basename(entry, extname(entry))}.mjs`);
  const packageDir = entry.slice(0, entry.lastIndexOf(`${sep}src${sep}`));
  try {
    const result = await build({
      entryPoints: [entry],
      outfile,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      tsconfig: join(packageDir, 'tsconfig.json'),
      conditions: [],
      mainFields: ['main'],
      keepNames: true,
      ignoreAnnotations: true,
      sourcemap: 'linked',
      sourcesContent: false,
      metafile: true,
      logLevel: 'silent',
      plugins: [thirdPartyExternal, ownImportMeta],
    });
    const stale = Object.keys(result.metafile.inputs).filter((input) =>
      input.split('/').includes('dist'),
    );
    if (stale.length > 0)
      throw new Error(
        `the test bundle of ${relative(REPOSITORY, entry)} would run built code instead of the sources: ${stale.join(', ')}`,
      );
  } finally {
    // esbuild's service process would otherwise live as long as the worker, its CPU time counted
    // in no test file's figure (CHI_FILE_CPU)
    await stop();
  }
  return outfile;
}

/** One build at a time in this process: `stop()` ends esbuild's service for every build in it. */
let queue: Promise<unknown> = Promise.resolve();

/**
 * The arguments for `node` that run the TypeScript script `entry` (an absolute path inside a
 * workspace package's `src/`) as tsx did: `['--enable-source-maps', <bundle>]`. Built the first
 * time any test file of this vitest run asks for `entry`; rejects with the build's errors.
 *
 * @example
 * spawn(process.execPath, [...(await nodeArgsFor(CLI)), 'pilot', '--out', dir], { env, stdio })
 */
export async function nodeArgsFor(entry: string): Promise<string[]> {
  const key = `child-bundle ${relative(REPOSITORY, entry)}`;
  const folder = await sharedFolder(key, (into) => {
    const built = queue.then(() => bundle(entry, into));
    queue = built.catch(() => undefined);
    return built.then(() => undefined);
  });
  return ['--enable-source-maps', join(folder, `${basename(entry, extname(entry))}.mjs`)];
}
