import { packageBuild, verifierBuild } from '../../tooling/tsup.base';

/**
 * Two builds: the library and the `chi` executable (src/cli.ts starts with a hashbang, which
 * esbuild keeps; prompt templates are read at run time from ../prompts/ next to dist/), and the
 * verifier every divergence release carries (`verifier/verify.mjs`, `verifierBuild`).
 */
export default [
  packageBuild(
    { index: 'src/index.ts', cli: 'src/cli.ts', internal: 'src/internal.ts' },
    { splitting: true },
  ),
  verifierBuild('src/divergence/verify-bin.ts'),
];
