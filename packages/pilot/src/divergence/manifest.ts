import type { DivergenceManifest as SpecDivergenceManifest } from '@chi/spec';

/**
 * The divergence protocol's parameters and budget as the scorer, the analysis and the plan's
 * cost read them (`DivergenceManifestSchema` of `@chi/spec`): a view of the frozen `RunManifest`
 * and its `experiments.divergence` (`divergenceManifestOf`), so the analysis reads the
 * checkpoints and the primary checkpoint from the manifest, never from code constants.
 */
export type DivergenceManifest = SpecDivergenceManifest;
