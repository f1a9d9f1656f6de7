import { z } from 'zod';
import { AxisIdSchema } from './axis-id';
import { Sha256Schema } from './primitives';

/**
 * The first line of a human-data JSONL file: what the rows are and whether they were made up.
 * `synthetic: true` marks data generated from a declared model (tests and examples only).
 */
export const HumanDataHeaderSchema = z.strictObject({
  kind: z.literal('chi-human-data'),
  schemaVersion: z.literal(1),
  /** True for data generated from a declared model: no human was measured. */
  synthetic: z.boolean(),
  /** Who was measured, how, in which language and conditions (or which model made the data up). */
  description: z.string().min(1),
});
/** The header line of a human-data file. */
export type HumanDataHeader = z.infer<typeof HumanDataHeaderSchema>;

/**
 * One measurement: one participant, one test, one feature of one axis. A participant has one row
 * per calibrated feature; `groups` (participant metadata for subgroup analysis, e.g.
 * `{ "language": "en" }`) must be the same on every row of a participant. `halves` holds the
 * feature measured on the odd and on the even items of the test, for split-half reliability;
 * a feature has halves on every row or on none.
 */
export const HumanDataRowSchema = z.strictObject({
  participant: z.string().min(1),
  axis: AxisIdSchema,
  /** The test the feature comes from, e.g. `behavior.R` (one test per feature). */
  test: z.string().min(1),
  feature: z.string().min(1),
  value: z.number({ error: 'expected a finite number' }),
  halves: z.tuple([z.number(), z.number()]).optional(),
  groups: z.record(z.string().min(1), z.string().min(1)).optional(),
});
/** One measurement row of a human-data file. */
export type HumanDataRow = z.infer<typeof HumanDataRowSchema>;

/** One participant of a calibration sample: metadata and every feature value. */
export const CalibrationParticipantSchema = z.strictObject({
  id: z.string().min(1),
  groups: z.record(z.string().min(1), z.string().min(1)),
  /** Feature values per axis. */
  features: z.partialRecord(AxisIdSchema, z.record(z.string().min(1), z.number())),
  /** Odd-item and even-item halves per axis and feature, where measured. */
  halves: z.partialRecord(
    AxisIdSchema,
    z.record(z.string().min(1), z.tuple([z.number(), z.number()])),
  ),
});
/** One participant of a calibration sample. */
export type CalibrationParticipant = z.infer<typeof CalibrationParticipantSchema>;

/** The scale estimator of a built calibration (see docs/protocol.md, "Human calibration"). */
export const SCALE_ESTIMATOR = 'sample-sd-n-minus-1' as const;

/**
 * How a calibration was built: the estimator, counts, the test of every feature and the content
 * hash. `contentSha256` is the SHA-256 of the RFC 8785 canonical JSON of the calibration without
 * `id` and without this hash; the ID ends in its first 12 hex digits.
 */
export const CalibrationBuildSchema = z.strictObject({
  /** mu = sample mean; s = sample standard deviation with n - 1. */
  estimator: z.literal(SCALE_ESTIMATOR),
  participants: z.int().min(2),
  /** The test each calibrated feature came from, per axis. */
  tests: z.partialRecord(AxisIdSchema, z.record(z.string().min(1), z.string().min(1))),
  contentSha256: Sha256Schema,
});
/** How a calibration was built. */
export type CalibrationBuild = z.infer<typeof CalibrationBuildSchema>;

/** Re-exported so a calibration file's `sample` validates on its own. */
export const CalibrationSampleSchema = z.strictObject({
  participants: z.array(CalibrationParticipantSchema).min(2),
});
/** The participant sample a calibration was built from. */
export type CalibrationSample = z.infer<typeof CalibrationSampleSchema>;
