import { defineConfig } from 'tsup';
import { packageBuild } from '../../tooling/tsup.base';

/**
 * Two builds: the library (`dist/`), and the verifier every release carries (`verifier/verify.mjs`):
 * `src/verify-bin.ts` with every dependency bundled in (zod, vega, vega-lite, canonicalize and the
 * `@chi/*` packages it uses), so `node code/verify.mjs .` needs nothing but Node.js. Not minified:
 * a reader of a release can audit it. `canvas` stays external: vega loads it optionally and renders
 * our SVGs without it.
 */
export default [
  packageBuild(),
  defineConfig({
    entry: { verify: 'src/verify-bin.ts' },
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
