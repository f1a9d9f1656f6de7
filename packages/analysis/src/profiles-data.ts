import { AxisIdSchema, ChiComparisonSchema } from '@chi/spec/internal';
import { z } from 'zod';

/** A pointwise percentile interval, or null when it could not be computed. */
export const ProfileIntervalSchema = z
  .strictObject({ lower: z.number(), upper: z.number() })
  .nullable();

/** One capacity score p: a task score of one system on one axis and test, with its interval. */
export const CapacityRowSchema = z.strictObject({
  systemId: z.string().min(1),
  axis: AxisIdSchema,
  test: z.string().min(1),
  /** `accuracy` (behavior) or `Q_M` (memory, notebook condition). */
  measure: z.enum(['accuracy', 'Q_M']),
  estimate: z.number().nullable(),
  /** World bootstrap (the release's analysis seed and resamples). */
  interval: ProfileIntervalSchema,
  worlds: z.int().min(0),
});
/** One capacity score. */
export type CapacityRow = z.infer<typeof CapacityRowSchema>;

/** One measured feature z of one system (mean over worlds), with its world interval. */
export const FeatureRowSchema = z.strictObject({
  systemId: z.string().min(1),
  axis: AxisIdSchema,
  test: z.string().min(1),
  feature: z.string().min(1),
  z: z.number().nullable(),
  interval: ProfileIntervalSchema,
  worlds: z.int().min(0),
});
/** One measured feature. */
export type FeatureRow = z.infer<typeof FeatureRowSchema>;

/** A similarity number with its three uncertainty layers. */
export const LayeredEstimateSchema = z.strictObject({
  estimate: z.number().nullable(),
  /** Why `estimate` is null. */
  reason: z.string().nullable(),
  /** Worlds resampled, calibration held at its participants. */
  world: ProfileIntervalSchema,
  /** Participants resampled (calibration re-estimated), the system's profile held. */
  calibration: ProfileIntervalSchema,
  /** Both resampled independently in each replicate; percentile interval of the joint replicates. */
  combined: ProfileIntervalSchema,
  /** Replicates per layer (world, calibration, combined) where the number was undefined. */
  undefinedReplicates: z.tuple([z.int().min(0), z.int().min(0), z.int().min(0)]),
});
/** A similarity number with its uncertainty layers. */
export type LayeredEstimate = z.infer<typeof LayeredEstimateSchema>;

/** h of one system on one axis. */
export const SimilarityRowSchema = z.strictObject({
  systemId: z.string().min(1),
  axis: AxisIdSchema,
  /** The worlds the profile uses: complete in every cell CHI combines (the same for h and CHI). */
  worldSeeds: z.array(z.int().min(0)),
  h: LayeredEstimateSchema,
});
/** h of one system on one axis. */
export type SimilarityRow = z.infer<typeof SimilarityRowSchema>;

/** CHI of one system, with its capacity profile p beside it (never shown alone). */
export const ChiRowSchema = z.strictObject({
  systemId: z.string().min(1),
  /** The worlds the profile uses: complete in every cell CHI combines. */
  worldSeeds: z.array(z.int().min(0)),
  chi: LayeredEstimateSchema,
  /** The capacity profile: every task score of the system (same as the capacity table). */
  capacity: z.array(
    z.strictObject({ test: z.string(), measure: z.string(), estimate: z.number().nullable() }),
  ),
});
/** CHI of one system with p beside it. */
export type ChiRow = z.infer<typeof ChiRowSchema>;

/** A five-number summary of CHI values (type-7 quantiles). */
export const ChiSummarySchema = z.strictObject({
  participants: z.int().min(0),
  min: z.number().nullable(),
  q25: z.number().nullable(),
  median: z.number().nullable(),
  q75: z.number().nullable(),
  max: z.number().nullable(),
});

/** The held-out human comparison: how human a real (here: synthetic) human scores. */
export const HeldOutSchema = z.strictObject({
  calibrationHalf: z.int().min(0),
  heldOut: z.int().min(0),
  reason: z.string().nullable(),
  /** CHI of held-out participants against the calibration half. */
  heldOutChi: ChiSummarySchema,
  /** CHI of the calibration half's own participants against it (in-sample, for contrast). */
  inSampleChi: ChiSummarySchema,
  /**
   * CHI of each system's mean profile against the same calibration half: the like-for-like
   * comparison with `heldOutChi` (a system's published CHI uses the full calibration, the held-out
   * humans cannot: they are part of it). Null with no defined CHI.
   */
  systemsChi: z.array(z.strictObject({ systemId: z.string(), chi: z.number().nullable() })),
});

/** Split-half reliability of one calibrated feature. */
export const ReliabilityRowSchema = z.strictObject({
  axis: AxisIdSchema,
  feature: z.string().min(1),
  participants: z.int().min(0),
  /** Pearson correlation of the odd-item and even-item halves across participants. */
  halfCorrelation: z.number().nullable(),
  /** Spearman-Brown: 2r / (1 + r). */
  spearmanBrown: z.number().nullable(),
  reason: z.string().nullable(),
});

/** h and CHI of one system against one subgroup's own calibration. */
export const SubgroupRowSchema = z.strictObject({
  systemId: z.string().min(1),
  group: z.string().min(1),
  level: z.string().min(1),
  participants: z.int().min(0),
  h: z.partialRecord(AxisIdSchema, z.number().nullable()),
  chi: z.number().nullable(),
  reason: z.string().nullable(),
});

/** CHI of one system under one declared variant (weights or transform). */
export const SensitivityRowSchema = z.strictObject({
  systemId: z.string().min(1),
  variant: z.string().min(1),
  weightsId: z.string().min(1),
  transform: z.string().min(1),
  chi: z.number().nullable(),
  /** chi minus the primary CHI. */
  difference: z.number().nullable(),
  reason: z.string().nullable(),
});

/**
 * One imitation-check row: similarity of a profile next to its capacity. `measured`: a scripted
 * imitator system that ran in this run (its h, CHI and p from the same scoring as every system);
 * `analytic-bound`: a profile computed from the calibration alone, no system answered anything.
 */
export const ImitationRowSchema = z.strictObject({
  systemId: z.string().min(1),
  basis: z.enum(['measured', 'analytic-bound']),
  description: z.string().min(1),
  h: z.partialRecord(AxisIdSchema, z.number().nullable()),
  chi: z.number().nullable(),
  capacity: z.array(
    z.strictObject({ test: z.string(), measure: z.string(), estimate: z.number().nullable() }),
  ),
  reason: z.string().nullable(),
});

/**
 * The two profiles of a run, never merged: capacity p (task scores) and similarity h (against the
 * frozen calibration), CHI from h only with p beside it, and the calibration's validity checks.
 */
export const ProfilesDataSchema = z.strictObject({
  kind: z.literal('chi-profiles'),
  schemaVersion: z.literal(1),
  featureSchema: z.literal('pilot-features-v1'),
  comparison: ChiComparisonSchema.nullable(),
  /** `SYNTHETIC` when the calibration was made up; null without a calibration. */
  calibrationLabel: z.enum(['SYNTHETIC', 'human']).nullable(),
  /** Why h and CHI are null (no calibration); null when a calibration exists. */
  reason: z.string().nullable(),
  uncertainty: z.strictObject({
    worldSeed: z.int().min(0),
    participantSeed: z.int().min(0),
    resamples: z.int().min(1),
    level: z.number(),
    combination: z.string().min(1),
  }),
  capacity: z.array(CapacityRowSchema),
  features: z.array(FeatureRowSchema),
  similarity: z.array(SimilarityRowSchema),
  chi: z.array(ChiRowSchema),
  heldOut: HeldOutSchema.nullable(),
  reliability: z.array(ReliabilityRowSchema),
  subgroups: z.array(SubgroupRowSchema),
  sensitivity: z.array(SensitivityRowSchema),
  imitation: z.array(ImitationRowSchema),
});
/** The two profiles of a run and the calibration checks. */
export type ProfilesData = z.infer<typeof ProfilesDataSchema>;
