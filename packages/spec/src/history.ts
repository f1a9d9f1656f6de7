import { z } from 'zod';
import { GeneratorInfoSchema } from './memory';
import { CountSchema, IsoTimeSchema, SeedSchema } from './primitives';

/** One of the two options of a binary environment. Coordinates: A = 0, B = 1. */
export const OptionSchema = z.enum(['A', 'B']);
/** One of the two options of a binary environment. */
export type Option = z.infer<typeof OptionSchema>;

/** A decision as scored: an option, an explicit unknown, or invalid (reported, never a distance). */
export const DecisionSchema = z.enum(['A', 'B', 'unknown', 'invalid']);
/** A decision as scored. Coordinates: A = 0, unknown = 0.5, B = 1; invalid has none. */
export type Decision = z.infer<typeof DecisionSchema>;

/** The answer that is currently warranted by the evidence: an option, or unknown. */
export const ValidAnswerSchema = z.enum(['A', 'B', 'unknown']);
/** The answer that is currently warranted by the evidence. */
export type ValidAnswer = z.infer<typeof ValidAnswerSchema>;

/** History A, its opposite B, and A2 (a repeat of A: the same-history stochastic control). */
export const HistoryIdSchema = z.enum(['A', 'B', 'A2']);
/** History A, its opposite B, and A2 (a repeat of A). */
export type HistoryId = z.infer<typeof HistoryIdSchema>;
/** The histories in canonical order. */
export const HISTORY_IDS: readonly HistoryId[] = ['A', 'B', 'A2'];

/** A checkpoint index: 0 baseline, 1 ingest, 2 and 3 neutral maintenance, 4 correction. */
export const CheckpointSchema = z.int().min(0).max(4);

/** One binary environment with randomized, uninformative option labels. */
export const HistoryEnvironmentSchema = z.strictObject({
  id: z.string().min(1),
  /** What is being chosen, e.g. `supplier for part 7f3a`. */
  subject: z.string().min(1),
  labels: z.strictObject({ A: z.string().min(1), B: z.string().min(1) }),
});
/** One binary environment. */
export type HistoryEnvironment = z.infer<typeof HistoryEnvironmentSchema>;

/** One dated piece of evidence about which option of an environment is more reliable. */
export const HistoryEvidenceSchema = z.strictObject({
  environmentId: z.string().min(1),
  date: IsoTimeSchema,
  source: z.string().min(1),
  /** `authoritative_correction` supersedes all earlier observations of the environment. */
  kind: z.enum(['observation', 'authoritative_correction']),
  favored: OptionSchema,
  /** Observed outcomes behind the evidence, e.g. successes out of trials per option. */
  outcomes: z.strictObject({
    A: z.strictObject({ trials: CountSchema, successes: CountSchema }),
    B: z.strictObject({ trials: CountSchema, successes: CountSchema }),
  }),
});
/** One dated piece of evidence. */
export type HistoryEvidence = z.infer<typeof HistoryEvidenceSchema>;

/** What happens at one checkpoint of one history. */
export const HistoryStepSchema = z.strictObject({
  checkpoint: CheckpointSchema,
  kind: z.enum(['baseline', 'ingest', 'maintenance', 'correction']),
  evidence: z.array(HistoryEvidenceSchema),
});
/** What happens at one checkpoint of one history. */
export type HistoryStep = z.infer<typeof HistoryStepSchema>;

/** A history world: four environments, histories A, B and A2 over checkpoints 0-4, and the truth. */
export const HistoryWorldSchema = z.strictObject({
  kind: z.literal('history-world'),
  generator: GeneratorInfoSchema,
  seed: SeedSchema,
  environments: z.array(HistoryEnvironmentSchema).length(4),
  /**
   * Counterbalancing of the history direction: the option history A's evidence favors in each
   * environment, in `environments` order. `@chi/worlds` writes four letters, e.g. `ABBB`, each an
   * independent fair draw from the world's seed (four independent environments, counterbalanced
   * across seeds, not within a world); history B favors the other option everywhere.
   */
  counterbalance: z.string().min(1),
  histories: z.strictObject({
    A: z.array(HistoryStepSchema).length(5),
    B: z.array(HistoryStepSchema).length(5),
    A2: z.array(HistoryStepSchema).length(5),
  }),
  /** Warranted answer per history, checkpoint (0-4) and environment (in `environments` order). */
  validAnswers: z.strictObject({
    A: z.array(z.array(ValidAnswerSchema).length(4)).length(5),
    B: z.array(z.array(ValidAnswerSchema).length(4)).length(5),
    A2: z.array(z.array(ValidAnswerSchema).length(4)).length(5),
  }),
});
/** A history world. */
export type HistoryWorld = z.infer<typeof HistoryWorldSchema>;
