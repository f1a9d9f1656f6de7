import { packageBuild, verifierBuild } from '../../tooling/tsup.base';

/**
 * Two builds: the library (`dist/`), and the verifier every release carries
 * (`verifier/verify.mjs`, `verifierBuild`: zod, vega, vega-lite, canonicalize and the `@chi/*`
 * packages it uses bundled in).
 */
export default [
  packageBuild({ index: 'src/index.ts', internal: 'src/internal.ts' }, { splitting: true }),
  verifierBuild('src/verify-bin.ts'),
];
