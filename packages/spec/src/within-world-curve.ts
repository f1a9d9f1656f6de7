import { z } from 'zod';
import { CountSchema, UnitIntervalSchema } from './primitives';

/**
 * One load of the secondary capacity curve: the mean of each world's own Q_M. It is a different
 * quantity from the primary estimand (Q_M of the world-mean factors, `CapacityPoint`) and is
 * always labelled by its `estimand` field so the two are never confused.
 */
export const WithinWorldQualityPointSchema = z.strictObject({
  estimand: z.literal('mean_within_world_quality_score'),
  load: z.int().min(1),
  /** Mean over worlds of that world's Q_M. */
  meanWithinWorldQualityScore: UnitIntervalSchema,
  /** Number of worlds averaged. */
  worlds: CountSchema,
});
/** One load of the secondary (mean within-world Q_M) curve. */
export type WithinWorldQualityPoint = z.infer<typeof WithinWorldQualityPointSchema>;

/** The secondary curve over a finite grid of tested loads, in increasing load order. */
export const WithinWorldQualityCurveSchema = z
  .array(WithinWorldQualityPointSchema)
  .refine((points) => points.every((p, k) => k === 0 || p.load > (points[k - 1]?.load ?? 0)), {
    error: 'loads must be strictly increasing',
  });
/** The secondary (mean within-world Q_M) curve. */
export type WithinWorldQualityCurve = z.infer<typeof WithinWorldQualityCurveSchema>;
