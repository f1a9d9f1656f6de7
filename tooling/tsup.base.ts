import { defineConfig, type Options } from 'tsup';

/**
 * The one build configuration every package shares: ESM only, bundled `.d.ts`, Node 20 target.
 * ESM-only is deliberate (docs/development.md): Node >= 20.19 can `require()` ESM, and shipping a
 * second CJS copy would double-instantiate zod schemas and error classes for mixed consumers.
 */
export function packageBuild(
  entry: Record<string, string> = { index: 'src/index.ts' },
  extra: Options = {},
) {
  return defineConfig({
    entry,
    format: ['esm'],
    target: 'node20',
    platform: 'node',
    dts: { resolve: false },
    tsconfig: 'tsconfig.build.json',
    sourcemap: true,
    clean: true,
    splitting: false,
    treeshake: true,
    ...extra,
  });
}
