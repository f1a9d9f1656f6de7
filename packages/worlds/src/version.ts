import type { GeneratorInfo } from '@chi/spec';

/** The package name written into every generated dataset's `generator.name`. */
export const GENERATOR_NAME = '@chi/worlds';

/**
 * The package version written into every generated dataset's `generator.version`. Kept equal to
 * `package.json` by a test: a release that changes what a seed generates must bump it.
 * 0.2.0 (issue #14): the as-of stratum exercises every branch of the as-of rule, and history
 * environments are independent draws. See docs/protocol.md#worlds.
 */
export const GENERATOR_VERSION = '0.2.0';

/** `{ name, version }` of this generator, as datasets and manifests record it. */
export function generatorInfo(): GeneratorInfo {
  return { name: GENERATOR_NAME, version: GENERATOR_VERSION };
}
