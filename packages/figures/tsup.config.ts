import { packageBuild } from '../../tooling/tsup.base';

/**
 * Two entries: the figures (`@chi/figures`) and what the report shares with them (`/internal`).
 * Code splitting keeps a function two entries export one object at run time.
 */
export default packageBuild(
  { index: 'src/index.ts', internal: 'src/internal.ts' },
  { splitting: true },
);
