import { z } from 'zod';
import { AxisIdSchema } from './axis-id';
import { CalibrationBuildSchema, CalibrationSampleSchema } from './calibration';

export { type AxisId, AxisIdSchema } from './axis-id';

const FeatureValues = z.record(
  z.string().min(1),
  z.number({ error: 'expected a finite feature value' }),
);

/** Measured behavioral features per axis (z_jl). Axes may be absent. */
export const AxisProfileSchema = z.strictObject({
  axes: z.partialRecord(AxisIdSchema, FeatureValues),
});
/** Measured behavioral features per axis. */
export type AxisProfile = z.infer<typeof AxisProfileSchema>;

/** Calibration of one feature: the human reference mean and a positive fixed scale. */
export const FeatureCalibrationSchema = z.strictObject({
  mu: z.number({ error: 'expected a finite mean' }),
  s: z.number({ error: 'expected a finite scale' }).gt(0, { error: 'the scale s must be > 0' }),
});
/** Calibration of one feature. */
export type FeatureCalibration = z.infer<typeof FeatureCalibrationSchema>;

/** A human calibration: the frozen reference a profile is compared with. */
export const HumanCalibrationSchema = z.strictObject({
  id: z.string().min(1),
  description: z.string(),
  /** True for a made-up calibration used in examples and tests. */
  synthetic: z.boolean(),
  axes: z.partialRecord(AxisIdSchema, z.record(z.string().min(1), FeatureCalibrationSchema)),
  /** How a built calibration was made (absent on a hand-written one). */
  build: CalibrationBuildSchema.optional(),
  /** The participant sample it was built from, so its uncertainty can be bootstrapped. */
  sample: CalibrationSampleSchema.optional(),
});
/** A human calibration. */
export type HumanCalibration = z.infer<typeof HumanCalibrationSchema>;

/** CHI, or null with the reason. Axis similarities h_j are reported beside it. */
export const ChiResultSchema = z.strictObject({
  value: z.number().min(0).max(100).nullable(),
  calibrationId: z.string().nullable(),
  reason: z.string().nullable(),
  axisSimilarity: z.partialRecord(AxisIdSchema, z.number().min(0).max(1)).nullable(),
  weights: z.partialRecord(AxisIdSchema, z.number().min(0).max(1)),
});
/** CHI, or null with the reason. */
export type ChiResult = z.infer<typeof ChiResultSchema>;
