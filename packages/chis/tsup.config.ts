import { packageBuild } from '../../tooling/tsup.base';

// Two entries: the main one (with the Node-only log I/O) and `pure` (no Node built-ins). Splitting
// puts their shared modules in one chunk, so a program importing both loads them once.
export default packageBuild(
  { index: 'src/index.ts', pure: 'src/pure.ts', internal: 'src/internal.ts' },
  { splitting: true },
);
