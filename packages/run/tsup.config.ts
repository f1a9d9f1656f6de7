import { packageBuild } from '../../tooling/tsup.base';

export default packageBuild();
