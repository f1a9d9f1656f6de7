import type { GeneratorInfo } from '@chi/spec';

/** The package name written into every generated dataset's `generator.name`. */
export const GENERATOR_NAME = '@chi/worlds';

/**
 * The package version written into every generated dataset's `generator.version`: the version this
 * package is released as. A test keeps it equal to `package.json` after `changeset version` applies
 * the pending changesets, so a change of what a seed generates needs a changeset bumping this
 * package and this constant set to the version that changeset gives (never a hand bump of
 * `package.json` as well, which would release one version further).
 * 0.2.0 (issue #14): the as-of stratum exercises every branch of the as-of rule, and history
 * environments are independent draws. See docs/protocol.md#worlds.
 */
export const GENERATOR_VERSION = '0.2.0';

/** `{ name, version }` of this generator, as datasets and manifests record it. */
export function generatorInfo(): GeneratorInfo {
  return { name: GENERATOR_NAME, version: GENERATOR_VERSION };
}
