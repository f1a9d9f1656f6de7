import type { DivergenceManifest as SpecDivergenceManifest } from '@chi/spec';
import { INTERVAL_METHOD_LABELS, STUDENTIZED_METHOD_LABEL } from '@chi/stats/internal';

/**
 * How the divergence analysis reads its pointwise intervals from the bootstrap over worlds:
 * `'studentized'` (`studentizedClusterMeans` of `@chi/stats`), or one of `clusterBootstrap`'s
 * `IntervalMethod`s. Frozen in the manifest (`experiments.divergence.intervalMethod`).
 */
export type DivergenceIntervalMethod = NonNullable<
  SpecDivergenceManifest['analysis']['intervalMethod']
>;

/**
 * The method new divergence manifests freeze: the studentized cluster bootstrap, the one of the
 * three that holds its level at 8 worlds on the known-truth systems (docs/coverage.md).
 */
export const DIVERGENCE_INTERVAL_METHOD: DivergenceIntervalMethod = 'studentized';

/**
 * The method of a manifest frozen before the method was recorded: what those runs were analysed
 * with, so their releases still verify.
 */
export const LEGACY_DIVERGENCE_INTERVAL_METHOD: DivergenceIntervalMethod = 'expanded_percentile';

/** Each {@link DivergenceIntervalMethod} in words, as the release names it. */
export const DIVERGENCE_INTERVAL_METHOD_LABELS: Readonly<Record<DivergenceIntervalMethod, string>> =
  {
    ...INTERVAL_METHOD_LABELS,
    studentized: STUDENTIZED_METHOD_LABEL,
  };
