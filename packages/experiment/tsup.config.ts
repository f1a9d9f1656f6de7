import { packageBuild } from '../../tooling/tsup.base';

/** Two entries: the SPI (`@chi/experiment`) and its contract suite (`@chi/experiment/test`). */
export default packageBuild({ index: 'src/index.ts', test: 'src/test/index.ts' });
