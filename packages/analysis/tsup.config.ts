import { packageBuild } from '../../tooling/tsup.base';

/**
 * Three entries: the analysis (`@chi/analysis`), what the repository's own packages share
 * (`/internal`) and the chart-data fixtures (`/test`). Code splitting keeps a schema or class that
 * two entries export one object at run time.
 */
export default packageBuild(
  { index: 'src/index.ts', internal: 'src/internal.ts', test: 'src/test/index.ts' },
  { splitting: true },
);
