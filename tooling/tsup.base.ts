import { defineConfig, type Options } from 'tsup';

/**
 * The one build configuration every package shares: ESM only, bundled `.d.ts`, Node 20 target.
 * ESM-only is deliberate (docs/development.md): Node >= 20.19 can `require()` ESM, and shipping a
 * second CJS copy would double-instantiate zod schemas and error classes for mixed consumers.
 */
export function packageBuild(
  entry: Record<string, string> = { index: 'src/index.ts' },
  extra: Options = {},
) {
  return defineConfig({
    entry,
    format: ['esm'],
    target: 'node20',
    platform: 'node',
    // Declarations are emitted without type-checking the sources again (`noCheck`: the emitted
    // .d.ts files are the same, byte for byte): `tsc -p tsconfig.typecheck.json` checks every
    // package, with the same options, in `check` (docs/benchmarks/ci.md, "Seventh pass").
    dts: { resolve: false, compilerOptions: { noCheck: true } },
    tsconfig: 'tsconfig.build.json',
    sourcemap: true,
    clean: true,
    splitting: false,
    treeshake: true,
    ...extra,
  });
}

/**
 * The verifier a release carries (`verifier/verify.mjs`): `entry` with every dependency bundled in,
 * so `node code/verify.mjs .` needs nothing but Node.js. Not minified: a reader of a release can
 * audit it. `canvas` stays external: vega loads it optionally and renders our SVGs without it.
 */
export function verifierBuild(entry: string) {
  return defineConfig({
    entry: { verify: entry },
    outDir: 'verifier',
    format: ['esm'],
    outExtension: () => ({ js: '.mjs' }),
    target: 'node20',
    platform: 'node',
    tsconfig: 'tsconfig.build.json',
    dts: false,
    sourcemap: false,
    clean: true,
    splitting: false,
    treeshake: true,
    noExternal: [/.*/],
    external: ['canvas'],
    banner: {
      js: "import { createRequire as __chiCreateRequire } from 'node:module'; const require = __chiCreateRequire(import.meta.url);",
    },
  });
}
