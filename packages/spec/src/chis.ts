import { z } from 'zod';
import { ChiResultSchema } from './chi';
import { CountSchema, EvidenceClassSchema, IsoTimeSchema, Sha256Schema } from './primitives';

/** The persisted state at a checkpoint: for the pilot, the external notebook. */
export const StateDescriptorSchema = z.strictObject({
  sha256: Sha256Schema,
  bytes: CountSchema,
  /** Bytes the system produced before the cap was applied. */
  originalBytes: CountSchema,
  truncated: z.boolean(),
});
/** The persisted state at a checkpoint. */
export type StateDescriptor = z.infer<typeof StateDescriptorSchema>;

/** Resources spent to reach a checkpoint (since the previous entry). */
export const ResourceRecordSchema = z.strictObject({
  requests: CountSchema,
  promptTokens: CountSchema.nullable(),
  completionTokens: CountSchema.nullable(),
  costUsd: z.number().min(0).nullable(),
  latencyMs: z.number().min(0).nullable(),
});
/** Resources spent to reach a checkpoint. */
export type ResourceRecord = z.infer<typeof ResourceRecordSchema>;

/**
 * One CHIS entry: a point of a trajectory. Event count, scheduled operations and elapsed wall time
 * are separate clocks: a dormant system need not change because hours pass.
 */
export const ChisEntrySchema = z.strictObject({
  kind: z.literal('chis-entry'),
  trajectoryId: z.string().min(1),
  systemId: z.string().min(1),
  evidenceClass: EvidenceClassSchema,
  worldSeed: z.int().min(0).nullable(),
  /** History label (e.g. `A`, `B`, `A2`) or null. */
  history: z.string().nullable(),
  checkpoint: CountSchema,
  /** Condition at this checkpoint: e.g. `baseline`, `neutral`, `intervention`, `fault`, `correction`. */
  condition: z.string().min(1),
  recordedAt: IsoTimeSchema,
  /** Experiences ingested so far (events processed; a read-only probe is not an event). */
  eventCount: CountSchema,
  /** Model invocations scheduled so far, probes included. */
  scheduledOperations: CountSchema,
  /** Wall time since the trajectory's first request, in milliseconds. */
  elapsedWallMs: z.number().min(0),
  /** Task indicators or behavioral features at this checkpoint; null marks an undefined value. */
  profile: z.record(z.string(), z.number().nullable()),
  /** Decision vector (A = 0, unknown = 0.5, B = 1; null = invalid), when the panel has one. */
  decisionVector: z.array(z.number().min(0).max(1).nullable()).nullable(),
  /** CHI is null whenever no human calibration exists (throughout the pilot). */
  chi: ChiResultSchema.nullable(),
  state: StateDescriptorSchema.nullable(),
  resources: ResourceRecordSchema,
});
/** One CHIS entry. */
export type ChisEntry = z.infer<typeof ChisEntrySchema>;
