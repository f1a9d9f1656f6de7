import { packageBuild } from '../../tooling/tsup.base';

export default packageBuild(
  { index: 'src/index.ts', internal: 'src/internal.ts' },
  { splitting: true },
);
