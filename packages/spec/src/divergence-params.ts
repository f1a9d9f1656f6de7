import { z } from 'zod';
import { GeneratorInfoSchema } from './memory';

/** One checkpoint of the divergence protocol's schedule and its phase. */
export const DivergenceCheckpointSchema = z.strictObject({
  checkpoint: z.int().min(0),
  phase: z.enum(['baseline', 'exposure', 'washout', 'later']),
});

/** What an arm does to its notebook beyond the common schedule. */
export const DivergenceArmOperationSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('none') }),
  z.strictObject({ kind: z.literal('swap'), partner: z.string().min(1) }),
  z.strictObject({ kind: z.literal('erase') }),
  z.strictObject({ kind: z.literal('sham-erase') }),
  z.strictObject({ kind: z.literal('fault') }),
  z.strictObject({ kind: z.literal('correction') }),
  z.strictObject({ kind: z.literal('matched-update') }),
]);

/** One instance (arm) of the divergence protocol per world seed and system. */
export const DivergenceArmSchema = z.strictObject({
  id: z.string().min(1),
  history: z.enum(['A', 'B']),
  exposure: z.array(z.enum(['A', 'B'])).min(1),
  operation: DivergenceArmOperationSchema,
  purpose: z.string().min(1),
});

/** The checkpoints after which (or at which) the divergence protocol's operations happen. */
export const DivergenceOperationsSchema = z.strictObject({
  swapAfter: z.int().min(0),
  erasureAfter: z.int().min(0),
  faultAt: z.int().min(0),
  plasticityAt: z.int().min(0),
});

/**
 * The divergence protocol's parameters as an experiment of a run (`manifest.experiments.divergence`
 * of a `RunManifest`): the generator, the checkpoints, the primary checkpoint, the operations and
 * the arms, preregistered there like the `DivergenceManifest` freezes them.
 */
export const DivergenceExperimentParamsSchema = z.strictObject({
  generator: GeneratorInfoSchema,
  checkpoints: z.array(DivergenceCheckpointSchema).min(1),
  primaryCheckpoint: z.int().min(0),
  operations: DivergenceOperationsSchema,
  arms: z.array(DivergenceArmSchema).min(1),
  /**
   * How the analysis reads every pointwise interval (series cells, dynamics, task accuracy) from
   * the bootstrap over worlds: `'studentized'` (bootstrap-t over worlds), `'expanded_percentile'`
   * or `'percentile'`. Absent in manifests frozen before it was recorded: those read
   * `'expanded_percentile'`, the method they were analysed with, so their releases still verify.
   */
  intervalMethod: z.enum(['studentized', 'expanded_percentile', 'percentile']).optional(),
});
/** The divergence protocol's parameters in `manifest.experiments.divergence`. */
export type DivergenceExperimentParams = z.infer<typeof DivergenceExperimentParamsSchema>;
