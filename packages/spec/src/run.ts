import { z } from 'zod';
import { ChatResultSchema } from './chat-model';
import { GeneratorInfoSchema } from './memory';
import {
  CountSchema,
  EvidenceClassSchema,
  IsoTimeSchema,
  SeedSchema,
  Sha256Schema,
  UsdSchema,
} from './primitives';

/** A per-token and per-request USD price. */
export const PriceSchema = z.strictObject({
  inputUsdPerToken: UsdSchema,
  outputUsdPerToken: UsdSchema,
  requestUsd: UsdSchema,
});
/** A per-token and per-request USD price. */
export type Price = z.infer<typeof PriceSchema>;

/** One evaluated system as registered in a manifest. */
export const SystemSpecSchema = z.strictObject({
  id: z.string().min(1),
  kind: z.enum(['openrouter', 'openai-compatible', 'scripted']),
  model: z.string().min(1),
  /** Provider allowlist (`provider.only`), empty for non-OpenRouter systems. */
  providers: z.array(z.string().min(1)),
  baseUrl: z.string().nullable(),
  evidenceClass: EvidenceClassSchema,
  reasoningEffort: z.string().nullable(),
  maxOutputTokens: z.int().min(1),
  /** Declared safety price; the effective price is the larger of this and the catalog price. */
  safetyPrice: PriceSchema.nullable(),
});
/** One evaluated system as registered in a manifest. */
export type SystemSpec = z.infer<typeof SystemSpecSchema>;

/** A prompt template as frozen in a manifest. */
export const PromptRefSchema = z.strictObject({
  name: z.string().min(1),
  version: z.string().min(1),
  sha256: Sha256Schema,
});
/** A prompt template as frozen in a manifest. */
export type PromptRef = z.infer<typeof PromptRefSchema>;

/**
 * The frozen plan of a run, hashed before the first scored request. Every attempt record carries
 * its hash; nothing in it may change after scored inference starts.
 */
export const RunManifestSchema = z.strictObject({
  kind: z.literal('run-manifest'),
  schemaVersion: z.literal(1),
  protocol: z.string().min(1),
  createdAt: IsoTimeSchema,
  evidenceClass: EvidenceClassSchema,
  systems: z.array(SystemSpecSchema).min(1),
  replicates: z.int().min(1),
  worldSeeds: z.array(SeedSchema).min(1),
  experiments: z.strictObject({
    memory: z
      .strictObject({
        loads: z.array(z.int().min(1)).min(1),
        probesPerStratum: z.int().min(1),
        batchSize: z.int().min(1).nullable(),
        controlsAtLoad: z.int().min(1).nullable(),
      })
      .nullable(),
    history: z.strictObject({ checkpoints: z.int().min(1) }).nullable(),
    behavior: z.strictObject({ items: z.int().min(1) }).nullable(),
  }),
  notebookCapBytes: z.int().min(1),
  ceilingUsd: UsdSchema,
  deadlineMs: z.int().min(1),
  maxOutputTokens: z.int().min(1),
  concurrency: z.int().min(1),
  retry: z.strictObject({ maxRetries: CountSchema, retryAfterCapMs: CountSchema }),
  reservationMargin: z.number().min(0),
  prompts: z.array(PromptRefSchema),
  generators: z.array(GeneratorInfoSchema),
  analysis: z.strictObject({
    seed: SeedSchema,
    resamples: z.int().min(1),
    level: z.number().gt(0).lt(1),
    taus: z.array(z.number().gt(0).max(1)).min(1),
  }),
  failureRules: z.array(z.string().min(1)),
});
/** The frozen plan of a run. */
export type RunManifest = z.infer<typeof RunManifestSchema>;

/** One line of the attempt log, written before a request is sent and again after it resolves. */
export const AttemptRecordSchema = z.strictObject({
  kind: z.literal('attempt'),
  manifestSha256: Sha256Schema,
  attemptId: z.string().min(1),
  requestId: z.string().min(1),
  systemId: z.string().min(1),
  blockId: z.string().min(1),
  phase: z.enum(['before_send', 'after_response']),
  at: IsoTimeSchema,
  /** SHA-256 and UTF-8 byte length of the rendered request messages. */
  requestSha256: Sha256Schema,
  inputBytes: CountSchema,
  /** Present in the `after_response` phase only. */
  result: ChatResultSchema.nullable(),
});
/** One line of the attempt log. */
export type AttemptRecord = z.infer<typeof AttemptRecordSchema>;
