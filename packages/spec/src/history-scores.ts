import { z } from 'zod';
import { CheckpointSchema, DecisionSchema } from './history';
import { CountSchema, UnitIntervalSchema } from './primitives';
import { RatioSchema } from './scores';

/** A decision vector: A = 0, unknown = 0.5, B = 1; an invalid decision has no coordinate (null). */
export const DecisionVectorSchema = z.strictObject({
  coordinates: z.array(z.union([z.literal(0), z.literal(0.5), z.literal(1)]).nullable()),
  /** Positions (environment indices) whose decision was invalid, reported instead of a coordinate. */
  invalidIndices: z.array(z.int().min(0)),
});
/** A decision vector with invalid decisions reported separately. */
export type DecisionVector = z.infer<typeof DecisionVectorSchema>;

/** D: the mean absolute coordinate difference of two decision vectors, or null with the reason. */
export const DecisionDistanceSchema = z.strictObject({
  /** Null when any coordinate of either vector is invalid (never an artificial agreement). */
  value: UnitIntervalSchema.nullable(),
  /** Number of coordinates compared (the vector length). */
  coordinates: CountSchema,
  invalidLeft: CountSchema,
  invalidRight: CountSchema,
  reason: z.string().nullable(),
});
/** D between two decision vectors, or null with the reason. */
export type DecisionDistance = z.infer<typeof DecisionDistanceSchema>;

/** Experience divergence D(A, B) - D(A, A2): different histories minus the same-history control. */
export const ExperienceDivergenceSchema = z.strictObject({
  /** D(A, B). */
  differentHistories: DecisionDistanceSchema,
  /** D(A, A2), the same-history stochastic control. */
  sameHistory: DecisionDistanceSchema,
  /** D(A, B) - D(A, A2) in [-1, 1]; null when either distance is null. */
  value: z.number().min(-1).max(1).nullable(),
  reason: z.string().nullable(),
});
/** Experience divergence with both distances it came from. */
export type ExperienceDivergence = z.infer<typeof ExperienceDivergenceSchema>;

/** Task accuracy, explicit-unknown rate and invalid rate of one history at one checkpoint. */
export const CheckpointAccuracySchema = z.strictObject({
  /** Decisions equal to the warranted answer (unknown matches unknown) over all environments. */
  accuracy: RatioSchema,
  /** Explicit `unknown` decisions over all environments. */
  explicitUnknownRate: RatioSchema,
  /** Invalid decisions over all environments. */
  invalidRate: RatioSchema,
});
/** Accuracy, explicit-unknown rate and invalid rate at one checkpoint. */
export type CheckpointAccuracy = z.infer<typeof CheckpointAccuracySchema>;

/** Continuity 1 - D between two checkpoints of one history. */
export const ContinuitySchema = z.strictObject({
  fromCheckpoint: CheckpointSchema,
  toCheckpoint: CheckpointSchema,
  /** 1 - D; null when D is null. */
  value: UnitIntervalSchema.nullable(),
  distance: DecisionDistanceSchema,
});
/** Continuity 1 - D between two checkpoints. */
export type Continuity = z.infer<typeof ContinuitySchema>;

/**
 * Correction response: accuracy at checkpoint 4 minus accuracy at checkpoint 3, both measured
 * against the answers the correction made newly valid, over the environments whose warranted
 * answer changed between checkpoints 3 and 4.
 */
export const CorrectionResponseSchema = z.strictObject({
  /** after.rate - before.rate in [-1, 1]; null when no environment's warranted answer changed. */
  value: z.number().min(-1).max(1).nullable(),
  /** Environment indices whose warranted answer changed between checkpoints 3 and 4. */
  changedEnvironments: z.array(z.int().min(0)),
  /** Checkpoint 3 decisions that already equal the newly valid answers. */
  before: RatioSchema,
  /** Checkpoint 4 decisions that equal the newly valid answers. */
  after: RatioSchema,
  reason: z.string().nullable(),
});
/** Correction response with the two accuracies it came from. */
export type CorrectionResponse = z.infer<typeof CorrectionResponseSchema>;

/** One history at one checkpoint: the decisions, their vector and accuracy. */
export const HistoryCheckpointResultSchema = z.strictObject({
  decisions: z.array(DecisionSchema),
  vector: DecisionVectorSchema,
  accuracy: CheckpointAccuracySchema,
});
/** One history at one checkpoint. */
export type HistoryCheckpointResult = z.infer<typeof HistoryCheckpointResultSchema>;

const PerHistory = <T extends z.ZodType>(schema: T) =>
  z.strictObject({ A: schema, B: schema, A2: schema });

/** Continuity of one history: primary 2 -> 3 (both neutral), supplementary 1 -> 2 and 1 -> 3. */
export const HistoryContinuitySchema = z.strictObject({
  primary: ContinuitySchema,
  supplementary: z.array(ContinuitySchema),
});
/** Continuity of one history across the neutral checkpoints. */
export type HistoryContinuity = z.infer<typeof HistoryContinuitySchema>;

/** Every history metric of one world. */
export const HistoryScoreSchema = z.strictObject({
  checkpoints: z.array(
    z.strictObject({
      checkpoint: CheckpointSchema,
      histories: PerHistory(HistoryCheckpointResultSchema),
      divergence: ExperienceDivergenceSchema,
    }),
  ),
  continuity: PerHistory(HistoryContinuitySchema),
  correctionResponse: PerHistory(CorrectionResponseSchema),
});
/** Every history metric of one world. */
export type HistoryScore = z.infer<typeof HistoryScoreSchema>;
