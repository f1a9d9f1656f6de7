import { AXIS_IDS } from '@chi/scoring';
import type { HumanCalibration } from '@chi/spec';
import type { ChiComparison, NamedWeights } from '@chi/spec/internal';

/** The primary weights: 1/5 per axis (the article's baseline). */
export const PRIMARY_WEIGHTS: NamedWeights = {
  id: 'equal',
  weights: { R: 0.2, M: 0.2, C: 0.2, A: 0.2, I: 0.2 },
};

/**
 * The declared alternative weights of the sensitivity analysis: leave one axis out (1/4 on each
 * of the other four). They answer "does one axis carry the CHI?" without inventing new priorities.
 */
export const LEAVE_ONE_AXIS_OUT_WEIGHTS: readonly NamedWeights[] = AXIS_IDS.map((left) => ({
  id: `without-${left}`,
  weights: { R: 0.25, M: 0.25, C: 0.25, A: 0.25, I: 0.25, [left]: 0 } as NamedWeights['weights'],
}));

/**
 * The CHI comparison a run freezes in its manifest when `--calibration` is given: the
 * calibration's ID, content hash and size, the pilot feature schema, equal weights and the
 * Gaussian transform as primary, and the declared alternatives (leave-one-axis-out weights;
 * Laplace and Cauchy transforms).
 */
export function chiComparisonFor(calibration: HumanCalibration): ChiComparison {
  return {
    calibrationId: calibration.id,
    calibrationSha256: calibration.build?.contentSha256 ?? '',
    calibrationSynthetic: calibration.synthetic,
    calibrationParticipants: calibration.build?.participants ?? 0,
    featureSchema: 'pilot-features-v1',
    weights: PRIMARY_WEIGHTS,
    transform: 'gaussian',
    alternativeWeights: [...LEAVE_ONE_AXIS_OUT_WEIGHTS],
    alternativeTransforms: ['laplace', 'cauchy'],
    heldOutSplit:
      'half: participants ordered by SHA-256 of "<analysis seed>/<id>", first ceil(n/2) calibrate',
  };
}
