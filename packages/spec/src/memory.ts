import { z } from 'zod';
import { CountSchema, HexValueSchema, IsoTimeSchema, SeedSchema } from './primitives';

/** Authority of a record: 2 beats 1 whatever the times. */
export const AuthoritySchema = z.union([z.literal(1), z.literal(2)], {
  error: 'authority must be 1 or 2',
});
/** Authority of a record: 2 beats 1 whatever the times. */
export type Authority = z.infer<typeof AuthoritySchema>;

/**
 * One registered proposition of a memory world. Its role (target, distractor, update, conflict)
 * is deliberately absent: it lives in the answer key only.
 */
export const MemoryRecordSchema = z.strictObject({
  key: z.string().min(1, { error: 'a record key cannot be empty' }),
  value: HexValueSchema,
  source: z.string().min(1, { error: 'a record source cannot be empty' }),
  eventTime: IsoTimeSchema,
  authority: AuthoritySchema,
});
/** One registered proposition: key, 8-hex value, source, event time and authority. */
export type MemoryRecord = z.infer<typeof MemoryRecordSchema>;

/** What a record is for, known only to the answer key. */
export const RecordRoleSchema = z.enum(['target', 'distractor', 'update', 'conflict']);
/** What a record is for, known only to the answer key. */
export type RecordRole = z.infer<typeof RecordRoleSchema>;

/**
 * The six probe strata: r current retrieval, t historical/as-of, s content and source,
 * u authoritative update, i interference, f absent-key lures.
 */
export const StratumSchema = z.enum(['r', 't', 's', 'u', 'i', 'f']);
/** One of the six memory probe strata. */
export type Stratum = z.infer<typeof StratumSchema>;
/** The strata in their canonical order. */
export const STRATA: readonly Stratum[] = ['r', 't', 's', 'u', 'i', 'f'];

/** A question as the prober sees it: an opaque ID, the key asked about, and an optional cutoff. */
export const BlindProbeSchema = z.strictObject({
  id: z.string().min(1),
  key: z.string().min(1),
  /** For an as-of question: only records with eventTime <= cutoff count. Null for current state. */
  asOf: IsoTimeSchema.nullable(),
});
/** A question as the prober sees it. Nothing in it reveals the stratum. */
export type BlindProbe = z.infer<typeof BlindProbeSchema>;

/** The hidden truth for one probe: enough to recompute the expectation from the records alone. */
export const AnswerKeyEntrySchema = z
  .strictObject({
    id: z.string().min(1),
    stratum: StratumSchema,
    key: z.string().min(1),
    asOf: IsoTimeSchema.nullable(),
    expectedValue: HexValueSchema.nullable(),
    expectedSource: z.string().min(1).nullable(),
  })
  .refine((entry) => (entry.expectedValue === null) === (entry.expectedSource === null), {
    error: 'expectedValue and expectedSource must both be null (unknown) or both be set',
    path: ['expectedSource'],
  });
/** The hidden truth for one probe. */
export type AnswerKeyEntry = z.infer<typeof AnswerKeyEntrySchema>;

/** Name and version of the code that made a dataset, for manifests and releases. */
export const GeneratorInfoSchema = z.strictObject({
  name: z.string().min(1),
  version: z.string().min(1),
});
/** Name and version of the code that made a dataset. */
export type GeneratorInfo = z.infer<typeof GeneratorInfoSchema>;

/** A complete memory world: records, blind probes and the hidden answer key. */
export const MemoryWorldSchema = z.strictObject({
  kind: z.literal('memory-world'),
  generator: GeneratorInfoSchema,
  seed: SeedSchema,
  load: z.int().min(1, { error: 'load must be at least 1' }),
  probesPerStratum: z.int().min(1),
  records: z.array(MemoryRecordSchema),
  /** Role of each record, index-aligned with `records`. Answer-key information. */
  recordRoles: z.array(RecordRoleSchema),
  /** Blind probes in presentation order (shuffled; IDs opaque). */
  probes: z.array(BlindProbeSchema),
  answerKey: z.array(AnswerKeyEntrySchema),
  counts: z.strictObject({
    targets: CountSchema,
    distractors: CountSchema,
    updates: CountSchema,
    conflicts: CountSchema,
    lures: CountSchema,
    records: CountSchema,
  }),
});
/** A complete memory world: records, blind probes and the hidden answer key. */
export type MemoryWorld = z.infer<typeof MemoryWorldSchema>;

/** What an encoder or prober may see of a world: records and blind probes, no roles, no key. */
export const BlindMemoryWorldSchema = z.strictObject({
  kind: z.literal('blind-memory-world'),
  load: z.int().min(1),
  records: z.array(MemoryRecordSchema),
  probes: z.array(BlindProbeSchema),
});
/** What an encoder or prober may see of a world. */
export type BlindMemoryWorld = z.infer<typeof BlindMemoryWorldSchema>;

/**
 * One answer as a model must give it: exactly `id`, `value` and `source`. Both null is an explicit
 * abstention; exactly one null is invalid.
 */
export const ProbeAnswerSchema = z
  .strictObject({
    id: z.string().min(1),
    value: z.string().nullable(),
    source: z.string().nullable(),
  })
  .refine((answer) => (answer.value === null) === (answer.source === null), {
    error: 'value and source must both be null (abstention) or both be strings',
    path: ['value'],
  });
/** One answer: `{ id, value, source }`; both null means "unknown". */
export type ProbeAnswer = z.infer<typeof ProbeAnswerSchema>;
