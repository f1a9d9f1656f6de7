import type { RunManifest, DivergenceManifest as SpecDivergenceManifest } from '@chi/spec';
import { LEGACY_DIVERGENCE_INTERVAL_METHOD } from './interval-method';
import { armCalls } from './protocol';

/**
 * The divergence protocol's parameters and budget as the scorer, the analysis and the plan's
 * cost read them (`DivergenceManifestSchema` of `@chi/spec`): a view of the frozen `RunManifest`
 * and its `experiments.divergence` (`divergenceManifestOf`), so the analysis reads the
 * checkpoints and the primary checkpoint from the manifest, never from code constants.
 */
export type DivergenceManifest = SpecDivergenceManifest;

/**
 * The `DivergenceManifest` view of a divergence `RunManifest` (`experiments.divergence`): what
 * the scorer, the analysis and the plan's cost read. The analysis's numbers depend only on the
 * fields both share.
 */
export function divergenceManifestOf(manifest: RunManifest): DivergenceManifest {
  const params = manifest.experiments.divergence;
  if (params === undefined)
    throw new Error('the run manifest has no experiments.divergence: not a divergence run');
  const perWorld = params.arms.reduce((sum, arm) => sum + armCalls(arm).length, 0);
  return {
    kind: 'divergence-manifest',
    protocol: 'divergence-v0.1',
    createdAt: manifest.createdAt,
    generator: params.generator,
    worldSeeds: manifest.worldSeeds,
    systems: manifest.systems,
    checkpoints: params.checkpoints,
    primaryCheckpoint: params.primaryCheckpoint,
    operations: params.operations,
    arms: params.arms,
    notebookCapBytes: manifest.notebookCapBytes,
    prompts: manifest.prompts,
    requestsPerWorldPerSystem: perWorld,
    totalRequests: perWorld * manifest.worldSeeds.length * manifest.systems.length,
    ceilingUsd: manifest.ceilingUsd,
    deadlineMs: manifest.deadlineMs,
    retry: manifest.retry,
    reservationMargin: manifest.reservationMargin,
    requireSmoke: manifest.requireSmoke === true,
    analysis: {
      seed: manifest.analysis.seed,
      resamples: manifest.analysis.resamples,
      level: manifest.analysis.level,
      intervalMethod: params.intervalMethod ?? LEGACY_DIVERGENCE_INTERVAL_METHOD,
    },
  };
}
