import { z } from 'zod';
import {
  DivergenceArmSchema,
  DivergenceCheckpointSchema,
  DivergenceOperationsSchema,
} from './divergence-params';
import { GeneratorInfoSchema } from './memory';
import { CountSchema, IsoTimeSchema, SeedSchema, UsdSchema } from './primitives';
import { PromptRefSchema, SystemSpecSchema } from './run';

/**
 * `manifest.json` of a divergence run (`chi pilot --protocol divergence-v0.1`): frozen and hashed
 * before the first request. The checkpoints, the primary checkpoint, the operations and the arms
 * are preregistered here; the budget fields bound a live run like the default pilot's manifest
 * (`ceilingUsd` 0 and `requireSmoke` false for a run of scripted systems only).
 */
export const DivergenceManifestSchema = z.strictObject({
  kind: z.literal('divergence-manifest'),
  protocol: z.literal('divergence-v0.1'),
  createdAt: IsoTimeSchema,
  generator: GeneratorInfoSchema,
  worldSeeds: z.array(SeedSchema).min(1),
  systems: z.array(SystemSpecSchema).min(1),
  checkpoints: z.array(DivergenceCheckpointSchema).min(1),
  primaryCheckpoint: z.int().min(0),
  operations: DivergenceOperationsSchema,
  arms: z.array(DivergenceArmSchema).min(1),
  notebookCapBytes: z.int().min(1),
  prompts: z.array(PromptRefSchema),
  requestsPerWorldPerSystem: z.int().min(1),
  totalRequests: z.int().min(1),
  /** USD ceiling of the scored requests (the ledger refuses a reservation beyond it). */
  ceilingUsd: UsdSchema,
  /** Deadline of one try, ms. */
  deadlineMs: z.int().min(1),
  retry: z.strictObject({ maxRetries: CountSchema, retryAfterCapMs: CountSchema }),
  /** Reservation margin on top of a request's upper bound, e.g. 0.25. */
  reservationMargin: z.number().min(0),
  /** The run refuses to send a scored request to a live system without a passing smoke check. */
  requireSmoke: z.boolean(),
  analysis: z.strictObject({
    seed: SeedSchema,
    resamples: z.int().min(1),
    level: z.number().gt(0).lt(1),
    /**
     * How every pointwise interval is read (`experiments.divergence.intervalMethod` of the run
     * manifest). Absent in manifests frozen before it was recorded: `'expanded_percentile'`.
     */
    intervalMethod: z.enum(['studentized', 'expanded_percentile', 'percentile']).optional(),
  }),
});
/** The frozen manifest of a divergence run. */
export type DivergenceManifest = z.infer<typeof DivergenceManifestSchema>;
