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

/** One behavioral feature the pilot measures on every system (and a calibration must match). */
export interface PilotFeature {
  readonly axis: 'R' | 'M' | 'C' | 'A' | 'I';
  /** The test it comes from. */
  readonly test: string;
  readonly feature: string;
  /** What the number is, in one sentence. */
  readonly definition: string;
}

/**
 * The pilot's declared feature schema (`pilot-features-v1`): the response-pattern features z_jl
 * the pilot measures per system and world, and that a compatible human calibration must calibrate.
 * `memory.notebook.min-load` is the smallest notebook load of the run's memory grid.
 */
export const PILOT_FEATURES: readonly PilotFeature[] = [
  { axis: 'R', test: 'behavior.R', feature: 'accuracy', definition: 'correct R items / R items' },
  {
    axis: 'R',
    test: 'behavior.R',
    feature: 'abstain_rate',
    definition: 'explicit abstentions on R items / R items',
  },
  {
    axis: 'M',
    test: 'memory.notebook.min-load',
    feature: 'retrieval',
    definition: 'current-retrieval factor r at the smallest notebook load',
  },
  {
    axis: 'M',
    test: 'memory.notebook.min-load',
    feature: 'false_memory_rate',
    definition: 'false-memory failure rate f at the smallest notebook load',
  },
  { axis: 'C', test: 'behavior.C', feature: 'accuracy', definition: 'correct C items / C items' },
  {
    axis: 'C',
    test: 'behavior.C',
    feature: 'abstain_rate',
    definition: 'explicit abstentions on C items / C items',
  },
  { axis: 'A', test: 'behavior.A', feature: 'accuracy', definition: 'correct A items / A items' },
  {
    axis: 'A',
    test: 'behavior.A',
    feature: 'frame_change_rate',
    definition: 'paired frame-induced choice change rate',
  },
  { axis: 'I', test: 'behavior.I', feature: 'accuracy', definition: 'correct I items / I items' },
  {
    axis: 'I',
    test: 'behavior.I',
    feature: 'abstain_rate',
    definition: 'explicit abstentions on I items / I items',
  },
];

/** The ID of {@link PILOT_FEATURES}. */
export const PILOT_FEATURE_SCHEMA = 'pilot-features-v1' as const;

/** A declared set of axis weights (sum 1) with a name, for CHI and its sensitivity analysis. */
export const NamedWeightsSchema = z.strictObject({
  id: z.string().min(1),
  weights: z.strictObject({
    R: z.number().min(0).max(1),
    M: z.number().min(0).max(1),
    C: z.number().min(0).max(1),
    A: z.number().min(0).max(1),
    I: z.number().min(0).max(1),
  }),
});
/** A declared set of axis weights. */
export type NamedWeights = z.infer<typeof NamedWeightsSchema>;

/** The declared similarity transforms (primary `gaussian`; see `@chi/scoring`). */
export const SimilarityTransformSchema = z.enum(['gaussian', 'laplace', 'cauchy']);

/**
 * The frozen CHI comparison of a run (`manifest.chiComparison`): which calibration, which feature
 * schema, the primary weights and transform, and the declared alternatives for the sensitivity
 * analysis. Frozen in the manifest before the first scored request; absent = no calibration, and
 * every h and CHI of the run is null.
 */
export const ChiComparisonSchema = z.strictObject({
  calibrationId: z.string().min(1),
  /** `build.contentSha256` of the calibration; the run folder holds it as `calibration.json`. */
  calibrationSha256: Sha256Schema,
  calibrationSynthetic: z.boolean(),
  calibrationParticipants: z.int().min(2),
  featureSchema: z.literal('pilot-features-v1'),
  weights: NamedWeightsSchema,
  transform: SimilarityTransformSchema,
  alternativeWeights: z.array(NamedWeightsSchema),
  alternativeTransforms: z.array(SimilarityTransformSchema),
  /** Share of participants in the calibration half of the held-out split. */
  heldOutSplit: z.literal(
    'half: participants ordered by SHA-256 of "<analysis seed>/<id>", first ceil(n/2) calibrate',
  ),
});
/** The frozen CHI comparison of a run. */
export type ChiComparison = z.infer<typeof ChiComparisonSchema>;
