import { defineConfig } from 'tsup';
import { packageBuild } from '../../tooling/tsup.base';

/**
 * Two builds: the library and the `chi` executable (src/cli.ts starts with a hashbang, which
 * esbuild keeps; prompt templates are read at run time from ../prompts/ next to dist/), and the
 * verifier every divergence release carries (`verifier/verify.mjs`): `src/divergence/verify-bin.ts`
 * with every dependency bundled in, so `node code/verify.mjs .` needs nothing but Node.js. Not
 * minified: a reader of a release can audit it. `canvas` stays external (vega loads it optionally).
 */
export default [
  packageBuild({ index: 'src/index.ts', cli: 'src/cli.ts' }),
  defineConfig({
    entry: { verify: 'src/divergence/verify-bin.ts' },
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
  }),
];
