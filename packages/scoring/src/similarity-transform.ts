import { InvalidArgumentError } from '@chi/spec';

/**
 * The declared transforms from an axis's standardized distances d_l = (z_l - mu_l) / s_l to its
 * similarity h in [0, 1]:
 * - `gaussian` (primary, the article's): h = exp(-0.5 * mean_l d_l^2);
 * - `laplace`: h = exp(-mean_l |d_l|), which weighs one far feature less than the Gaussian;
 * - `cauchy`: h = 1 / (1 + 0.5 * mean_l d_l^2), heavy-tailed, never underflows to 0.
 * All three give 1 at the centroid and decrease with distance; they differ in how fast. The
 * alternatives exist for sensitivity analysis ("different weights or transforms need declared
 * calibration and sensitivity analysis"), not as equals of the primary.
 */
export const SIMILARITY_TRANSFORMS = ['gaussian', 'laplace', 'cauchy'] as const;
/** One declared similarity transform. */
export type SimilarityTransform = (typeof SIMILARITY_TRANSFORMS)[number];

/** The primary transform of the framework. */
export const PRIMARY_TRANSFORM: SimilarityTransform = 'gaussian';

/**
 * h of one axis from its standardized distances under `transform`.
 *
 * @throws InvalidArgumentError for no distances, a non-finite distance or an unknown transform.
 * @example
 * ```ts
 * similarityFromDistances([1, -1], 'gaussian'); // exp(-0.5) = 0.6065306597126334
 * similarityFromDistances([1, -1], 'laplace'); // exp(-1)
 * similarityFromDistances([1, -1], 'cauchy'); // 1 / 1.5
 * ```
 */
export function similarityFromDistances(
  distances: readonly number[],
  transform: SimilarityTransform = PRIMARY_TRANSFORM,
): number {
  if (distances.length === 0)
    throw new InvalidArgumentError('distances', 'expected at least one standardized distance');
  if (!distances.every(Number.isFinite))
    throw new InvalidArgumentError('distances', 'expected finite standardized distances');
  const n = distances.length;
  const meanSquare = distances.reduce((sum, d) => sum + d * d, 0) / n;
  switch (transform) {
    case 'gaussian':
      return Math.exp(-0.5 * meanSquare);
    case 'laplace':
      return Math.exp(-distances.reduce((sum, d) => sum + Math.abs(d), 0) / n);
    case 'cauchy':
      return 1 / (1 + 0.5 * meanSquare);
    default:
      throw new InvalidArgumentError(
        'transform',
        `expected one of ${SIMILARITY_TRANSFORMS.join(', ')}, found ${JSON.stringify(transform)}`,
      );
  }
}
