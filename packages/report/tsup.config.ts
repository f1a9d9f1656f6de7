import { packageBuild, verifierBuild } from '../../tooling/tsup.base';

/**
 * Two builds: the library (`dist/`; its `viewer` and `inspect` entries, which `chi view` and `chi export inspect`
 * import, load no vega), and the verifier every release carries (`verifier/verify.mjs`, `verifierBuild`: zod, vega, vega-lite, canonicalize and the `@chi/*`
 * packages it uses bundled in).
 */
export default [
  packageBuild(
    {
      index: 'src/index.ts',
      internal: 'src/internal.ts',
      inspect: 'src/inspect.ts',
      viewer: 'src/viewer.ts',
      // the worker thread of `chi score` and `chi verify` (`release-workers.ts` starts it)
      'release-worker': 'src/release/release-worker.ts',
    },
    { splitting: true },
  ),
  verifierBuild('src/verify/verify-bin.ts'),
];
