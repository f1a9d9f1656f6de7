import { packageBuild } from '../../tooling/tsup.base';

/**
 * Three entries: the figures (`@chi/figures`), what the report shares with them (`/internal`) and
 * the colours as plain data (`/palette`, no vega: `chi view` draws with it).
 * Code splitting keeps a function two entries export one object at run time.
 */
export default packageBuild(
  { index: 'src/index.ts', internal: 'src/internal.ts', palette: 'src/palette.ts' },
  { splitting: true },
);
