import { axisSimilarity, chi } from '@chi/scoring';
import type { AxisId, AxisProfile, HumanCalibration } from '@chi/spec';
import type { ChiComparison } from '@chi/spec/internal';

/** h of one axis, or null with the reason. */
export function hOf(
  profile: AxisProfile,
  calibration: HumanCalibration,
  axis: AxisId,
  transform: ChiComparison['transform'] = 'gaussian',
): { value: number | null; reason: string | null } {
  const calibrated = calibration.axes[axis];
  if (calibrated === undefined || Object.keys(calibrated).length === 0)
    return { value: null, reason: `the calibration does not calibrate axis ${axis}` };
  try {
    return {
      value: axisSimilarity(
        profile.axes[axis] ?? {},
        calibrated,
        `profile.axes.${axis}`,
        transform,
      ),
      reason: null,
    };
  } catch (error) {
    return { value: null, reason: (error as Error).message };
  }
}

/** CHI under weights and transform, or null with the reason. */
export function chiOf(
  profile: AxisProfile,
  calibration: HumanCalibration,
  weights: Record<AxisId, number>,
  transform: ChiComparison['transform'] = 'gaussian',
): { value: number | null; reason: string | null } {
  try {
    const result = chi(profile, calibration, weights, transform);
    return { value: result.value, reason: result.reason };
  } catch (error) {
    return { value: null, reason: (error as Error).message };
  }
}
