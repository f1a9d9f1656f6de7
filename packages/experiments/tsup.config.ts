import { packageBuild } from '../../tooling/tsup.base';

/** One entry: the built-in experiments and their registry (`@chi/experiments`). */
export default packageBuild({ index: 'src/index.ts' });
