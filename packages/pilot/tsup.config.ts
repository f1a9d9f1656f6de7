import { packageBuild } from '../../tooling/tsup.base';

// Two entries: the library and the `chi` executable (src/cli.ts starts with a hashbang, which
// esbuild keeps). Prompt templates are read at run time from ../prompts/ next to dist/.
export default packageBuild({ index: 'src/index.ts', cli: 'src/cli.ts' });
