import { packageBuild } from '../../tooling/tsup.base';

/**
 * Two entries: the built-in experiments and their registry (`@chi/experiments`), and what the
 * repository's own packages share with the folders (`/internal`: render and scripted helpers).
 */
export default packageBuild(
  { index: 'src/index.ts', internal: 'src/internal.ts' },
  { splitting: true },
);
