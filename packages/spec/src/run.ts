import { z } from 'zod';
import { ChiComparisonSchema } from './calibration';
import { ChatMessageSchema, ChatResultSchema, FailureClassSchema } from './chat-model';
import { DivergenceExperimentParamsSchema } from './divergence-params';
import { InvalidArgumentError } from './errors';
import { HistoryIdSchema } from './history';
import { GeneratorInfoSchema } from './memory';
import { RunConfigurationSchema } from './pilot-config';
import {
  CountSchema,
  EvidenceClassSchema,
  IsoTimeSchema,
  SeedSchema,
  Sha256Schema,
  UsdSchema,
} from './primitives';
import { RunStudyLinkSchema } from './study';

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
  /**
   * The environment variable this system's API key is read from (never the key itself), for the
   * first session and every resume alike: a key goes only to the host of the system that names
   * its variable. `null`: no key is sent. Absent (older manifests): `OPENROUTER_API_KEY` for
   * `openrouter`, `OPENAI_API_KEY` for `openai-compatible`.
   */
  apiKeyEnv: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/)
    .nullable()
    .optional(),
  /**
   * A declared reference condition whose notebook is not capped (the `perfect` scripted system
   * only). Never true for an evaluated model; reports label it. Absent means false.
   */
  uncappedNotebook: z.boolean().optional(),
  /** For scripted reference systems: their seed and declared noise; absent or null for real models. */
  scripted: z
    .strictObject({
      /** Seed of the system's deterministic noise. */
      seed: SeedSchema,
      /** Named noise probabilities in [0, 1], e.g. `{ historyFlip: 0.1 }`. */
      declaredNoise: z.record(z.string().min(1), z.number().min(0).max(1)),
      description: z.string().min(1),
    })
    .nullable()
    .optional(),
  /**
   * Who holds the memory (issue 36): absent means `notebook` (the runner carries a capped notebook
   * in every prompt); `system` means the system keeps its own memory: sessions are sent without
   * notes and every request names its instance and session (see `ChatInstance`).
   */
  memory: z.enum(['notebook', 'system']).optional(),
  /**
   * The instance-control extension the system declared (issue 36): `chi-instance-control-v1`
   * means it can export, import and erase one instance's state (in process `ChatModel.instanceControl`,
   * over HTTP `POST <base>/chi/instances/{id}/export|import|erase`). Absent: none, so the
   * divergence protocol's swap, erasure, sham erasure and fault arms are not applicable to it under
   * the `system` memory policy, and its bytes stored are unknown.
   */
  instanceControl: z.literal('chi-instance-control-v1').optional(),
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

/** The memory experiment's parameters in `manifest.experiments.memory`. */
export const MemoryExperimentParamsSchema = z.strictObject({
  loads: z.array(z.int().min(1)).min(1),
  probesPerStratum: z.int().min(1),
  batchSize: z.int().min(1).nullable(),
  controlsAtLoad: z.int().min(1).nullable(),
  /**
   * The transcript-replay baseline (opt-in): at every load, the same blind questions are asked a
   * second time with the stored transcript of the system's encode session in place of its notebook
   * (uncapped; its storage and replay costs are reported). Absent means off.
   */
  transcriptReplay: z.literal(true).optional(),
});
/** The memory experiment's parameters. */
export type MemoryExperimentParams = z.infer<typeof MemoryExperimentParamsSchema>;

/** The history experiment's parameters in `manifest.experiments.history`. */
export const HistoryExperimentParamsSchema = z.strictObject({ checkpoints: z.int().min(1) });
/** The history experiment's parameters. */
export type HistoryExperimentParams = z.infer<typeof HistoryExperimentParamsSchema>;

/** The behavioral probes' parameters in `manifest.experiments.behavior`. */
export const BehaviorExperimentParamsSchema = z.strictObject({
  items: z.int().min(1),
  /**
   * Probe-wording invariance (opt-in): every item is asked a second time, in fresh requests, under
   * the declared equivalent wording (`wording` 2). Absent means one wording.
   */
  wordings: z.literal(2).optional(),
});
/** The behavioral probes' parameters. */
export type BehaviorExperimentParams = z.infer<typeof BehaviorExperimentParamsSchema>;

/**
 * The goal-persistence experiment's parameters in `manifest.experiments['goal-persistence']`
 * (opt-in: absent unless `--templates` names it). `generator` names the world generator of
 * `@chi/worlds` that the prompts and the scores are a function of.
 */
export const GoalPersistenceParamsSchema = z.strictObject({
  generator: z.literal('goal-persistence-world@1'),
  steps: z.int().min(2).max(8),
});
/** The goal-persistence experiment's parameters. */
export type GoalPersistenceParams = z.infer<typeof GoalPersistenceParamsSchema>;

/**
 * The feedback-valence experiment's parameters in `manifest.experiments['feedback-valence']`
 * (opt-in: absent unless `--templates` names it).
 */
export const FeedbackValenceParamsSchema = z.strictObject({
  generator: z.literal('feedback-valence-world@1'),
  choices: z.int().min(1).max(12),
});
/** The feedback-valence experiment's parameters. */
export type FeedbackValenceParams = z.infer<typeof FeedbackValenceParamsSchema>;

/**
 * A shard's part of a run (docs/protocol.md, "Shards"): shard `index` of `count` (1-based) runs
 * the (world seed, system) units whose position in the plan's order is congruent to `index - 1`
 * modulo `count`, under `ceilingUsd` (its share of the run's ceiling, the shares summing to at
 * most it), with `planSha256` the hash of its part of the plan (its `plan.json`).
 */
export const RunShardSchema = z.strictObject({
  index: z.int().min(1),
  count: z.int().min(1),
  ceilingUsd: UsdSchema,
  planSha256: Sha256Schema,
});
/** A shard's part of a run, frozen in its manifest. */
export type RunShard = z.infer<typeof RunShardSchema>;

/**
 * A registered built-in experiment's ID (`@chi/experiments`): kebab-case. The runner checks it
 * against its registry; the schema only checks the form, so a new built-in experiment needs no
 * line in `@chi/spec`.
 */
const REGISTERED_ID = /^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/;
/** A registered built-in experiment's request task: snake-case, checked against the registry. */
const REGISTERED_TASK = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/;

/** The keys of `manifest.experiments` the schema names; any other is a registered experiment's. */
const FIXED_EXPERIMENT_KEYS: ReadonlySet<string> = new Set([
  'memory',
  'history',
  'behavior',
  'goal-persistence',
  'feedback-valence',
  'divergence',
  'added',
]);

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
  experiments: z
    .strictObject({
      memory: MemoryExperimentParamsSchema.nullable(),
      history: HistoryExperimentParamsSchema.nullable(),
      behavior: BehaviorExperimentParamsSchema.nullable(),
      /** Opt-in (C axis): absent unless the run names it. */
      'goal-persistence': GoalPersistenceParamsSchema.optional(),
      /** Opt-in (A axis): absent unless the run names it. */
      'feedback-valence': FeedbackValenceParamsSchema.optional(),
      /** The divergence protocol (`chi pilot --protocol divergence-v0.1`): absent otherwise. */
      divergence: DivergenceExperimentParamsSchema.optional(),
      /**
       * Parameters of experiments registered from outside the pilot, by ID (`x-...`); each module
       * validates its own. Absent when only the pilot's experiments run.
       */
      added: z.record(z.string().regex(/^x-[a-z0-9-]+$/), z.unknown()).optional(),
    })
    /**
     * Parameters of any other registered built-in experiment (`@chi/experiments`), under its ID:
     * a kebab-case ID without the `x-` of added experiments. The runner checks each against its
     * registry and the module's own parameter schema when a run is created or opened, so a new
     * built-in experiment needs no line here.
     */
    .catchall(z.unknown())
    .superRefine((experiments, context) => {
      for (const id of Object.keys(experiments)) {
        if (FIXED_EXPERIMENT_KEYS.has(id)) continue;
        if (!REGISTERED_ID.test(id) || id.startsWith('x-'))
          context.addIssue({
            code: 'custom',
            path: [id],
            message: `expected a registered experiment's kebab-case ID (an added one goes under added), found ${JSON.stringify(id)}`,
          });
      }
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
    /**
     * The preregistered primary checkpoint of the history experiment: the checkpoint at which the
     * summary reads the excess divergence D(A,B) - D(A,A2). Frozen here so no report code chooses
     * it. Absent in manifests written before it was frozen; those read 3 (what the report then
     * hard-coded).
     */
    primaryCheckpoint: z.int().min(0).optional(),
    /**
     * The reference system of the paired comparisons (`chi pilot --compare-to`): every other
     * system is compared with it. Absent: every pair of systems.
     */
    compareTo: z.string().min(1).optional(),
  }),
  failureRules: z.array(z.string().min(1)),
  /** SHA-256 of `plan.json` (the registered requests), which is a pure function of this manifest. */
  planSha256: Sha256Schema.optional(),
  /**
   * SHA-256 of the RFC 8785 JSON of `catalog.json` (the catalog prices, quantizations and provider
   * endpoints every reservation of a live OpenRouter run reads), frozen before the first request:
   * a resume refuses a catalog that is missing or differs. Absent when the run has no catalog
   * (offline, OpenAI-compatible endpoints) and in manifests frozen before it was recorded.
   */
  catalogSha256: Sha256Schema.optional(),
  /**
   * A scored run refuses to start unless a passing smoke check is recorded for every live system.
   * Absent means false.
   */
  requireSmoke: z.boolean().optional(),
  /**
   * The `chi pilot` options the run was started with (configuration file and flags merged).
   * Absent for runs made through the library without the CLI.
   */
  configuration: RunConfigurationSchema.optional(),
  /**
   * The human calibration the run's CHI is computed against: null when there is none (CHI is
   * then null). Absent in manifests frozen before it was recorded.
   */
  calibrationId: z.string().min(1).nullable().optional(),
  /**
   * The framework's "memory and scheduler policies" and "resets", as the runner applies them, in
   * sentences. Absent in manifests frozen before they were recorded.
   */
  policies: z
    .strictObject({
      memory: z.string().min(1),
      reset: z.string().min(1),
      scheduler: z.string().min(1),
    })
    .optional(),
  /**
   * The framework's "feature schemas": every behavioral feature vector the run reports, with a
   * version that changes whenever a feature's definition or coding changes. Absent in manifests
   * frozen before they were recorded.
   */
  featureSchemas: z
    .array(
      z.strictObject({
        id: z.string().min(1),
        version: z.int().min(1),
        features: z.array(z.string().min(1)).min(1),
        coding: z.string().min(1),
      }),
    )
    .optional(),
  /** The frozen CHI comparison (calibration ID and hash, weights, transform); absent = no calibration. */
  chiComparison: ChiComparisonSchema.optional(),
  /**
   * Set only in a shard's run folder (`chi pilot --shard i/n`): which part of the plan it runs
   * and its preregistered share of the ceiling. The rest of the manifest is the unsharded run's,
   * byte for byte once this field is removed (`chi merge` checks it); `ceilingUsd` stays the
   * whole run's ceiling and `planSha256` the whole plan's.
   */
  shard: RunShardSchema.optional(),
  /**
   * Set only in a study session's run folder (`chi study run`): the study manifest's hash, the
   * session index and the hash of the state the session continues from (docs/protocol.md,
   * "Studies").
   */
  study: RunStudyLinkSchema.optional(),
});
/** The frozen plan of a run. */
export type RunManifest = z.infer<typeof RunManifestSchema>;

/**
 * Where a request's notebook comes from when it is not simply the notebook its experiment's key
 * holds (the divergence protocol's operations, docs/architecture.md): `request`, the notebook a
 * named request wrote (a swap reads its partner's, a sham erasure restores the one from before);
 * `empty`, an erased notebook; `corrupted`, the notebook a named request wrote, made unreadable
 * at the same byte length (a reversible fault). The runner applies it when it renders the request
 * and records it in the attempt's `before_send`.
 */
export const NotebookSourceSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('request'), requestId: z.string().min(1) }),
  z.strictObject({ kind: z.literal('empty') }),
  z.strictObject({ kind: z.literal('corrupted'), requestId: z.string().min(1) }),
]);
/** Where a request's notebook comes from (absent: its experiment's notebook key). */
export type NotebookSource = z.infer<typeof NotebookSourceSchema>;

/** One line of the attempt log, written before a request is sent and again after it resolves. */
export const AttemptRecordSchema = z.strictObject({
  kind: z.literal('attempt'),
  manifestSha256: Sha256Schema,
  attemptId: z.string().min(1),
  requestId: z.string().min(1),
  systemId: z.string().min(1),
  blockId: z.string().min(1),
  /**
   * `before_send` is written before the request leaves, `after_response` when it resolved.
   * `abandoned` is written on resume for a `before_send` without `after_response`: the request was
   * possibly sent and its outcome is unknown.
   */
  phase: z.enum(['before_send', 'after_response', 'abandoned']),
  at: IsoTimeSchema,
  /** SHA-256 and UTF-8 byte length of the rendered request messages. */
  requestSha256: Sha256Schema,
  inputBytes: CountSchema,
  /** Present in the `after_response` phase only. */
  result: ChatResultSchema.nullable(),
  /** Why an attempt was abandoned (phase `abandoned` only); absent otherwise. */
  reason: z.string().min(1).optional(),
  /**
   * The notebook source the runner applied to the request (phase `before_send` only, and only
   * for a planned request that has one); absent otherwise.
   */
  notebookSource: NotebookSourceSchema.optional(),
  /**
   * Bytes stored (issue 36): the system's own count of the bytes its memory instance holds, read
   * from its instance-control export right after the instance's last planned session resolved
   * (phase `after_response` of that session only, for a system under memory policy `system` that
   * declares the extension); absent otherwise, so other logs keep their bytes.
   */
  bytesStored: CountSchema.optional(),
  /**
   * The hash chain over the log: SHA-256 of the RFC 8785 canonical JSON of the previous record
   * (null for the first record). An edited, removed or inserted record breaks the chain at the
   * next record. Absent in logs written before the chain existed.
   */
  previousSha256: Sha256Schema.nullable().optional(),
});
/** One line of the attempt log. */
export type AttemptRecord = z.infer<typeof AttemptRecordSchema>;

/**
 * The ID of an experiment registered from outside the pilot: `x-` and a name. The prefix keeps
 * added experiments apart from the pilot's own, now and when the pilot gains experiments.
 */
export const AddedExperimentIdSchema = z.templateLiteral(['x-', z.string()]);
/** The ID of an experiment registered from outside the pilot. */
export type AddedExperimentId = z.infer<typeof AddedExperimentIdSchema>;

/**
 * The experiment a registered request belongs to: one of the pilot's, an added experiment's ID
 * (`x-...`), or another registered built-in experiment's kebab-case ID.
 */
export const ExperimentKindSchema = z.union([
  z.enum([
    'memory',
    'controls',
    'history',
    'behavior',
    'goal-persistence',
    'feedback-valence',
    'divergence',
  ]),
  AddedExperimentIdSchema,
  z.string().regex(REGISTERED_ID),
]);
/** The experiment a registered request belongs to. */
export type ExperimentKind = z.infer<typeof ExperimentKindSchema>;

/** The task of a registered request, as named in its REQUEST block. */
export const RequestTaskSchema = z.union([
  z.enum([
    'memory_encode',
    'memory_probe',
    'memory_probe_oracle',
    'history_update',
    'history_probe',
    'behavior_half',
    'goal_step',
    'valence_feedback',
    'valence_choice',
    'divergence_update',
    'divergence_probe',
    'smoke',
  ]),
  AddedExperimentIdSchema,
  z.string().regex(REGISTERED_TASK),
]);
/** The task of a registered request. */
export type RequestTask = z.infer<typeof RequestTaskSchema>;

/** One registered request of a run: what it is, for whom, and what must happen before it. */
export const PlannedRequestSchema = z.strictObject({
  requestId: z.string().min(1),
  systemId: z.string().min(1),
  blockId: z.string().min(1),
  experiment: ExperimentKindSchema,
  task: RequestTaskSchema,
  /** Step name inside the unit, e.g. `encode`, `probe.b0`, `A.c2.update`, `half1`. */
  step: z.string().min(1),
  worldSeed: SeedSchema,
  load: z.int().min(1).nullable(),
  /**
   * Memory condition: the evaluated notebook, a control, or the transcript-replay baseline
   * (`replay`, opt-in). Null outside memory.
   */
  condition: z.enum(['notebook', 'blank', 'oracle', 'replay']).nullable(),
  /** Probe batch index (memory probes only). */
  batch: CountSchema.nullable(),
  history: HistoryIdSchema.nullable(),
  checkpoint: z.int().min(0).max(4).nullable(),
  /** Behavioral half (1 or 2). */
  half: z.union([z.literal(1), z.literal(2)]).nullable(),
  /**
   * The declared wording its items are asked in (probe-wording invariance runs only): 2 for the
   * equivalent wording. Absent means the experiment's first wording.
   */
  wording: z.literal(2).optional(),
  /** Requests whose results this one needs (the notebook it reads). */
  dependsOn: z.array(z.string().min(1)),
  /** True when the reply becomes a notebook (encode and history updates). */
  writesNotebook: z.boolean(),
  /**
   * Where the notebook it reads comes from, when not its experiment's notebook key (see
   * `NotebookSourceSchema`); a named request must be among its `dependsOn`. Absent: the key.
   */
  notebookSource: NotebookSourceSchema.optional(),
  /** Opaque token in the REQUEST block, equal for every system; unique per registered request. */
  nonce: z.string().regex(/^[0-9a-f]{16}$/),
});
/** One registered request of a run. */
export type PlannedRequest = z.infer<typeof PlannedRequestSchema>;

/** The fields of a planned request that only some experiments' requests carry (null elsewhere). */
export type PlannedRequestExperimentField =
  | 'load'
  | 'condition'
  | 'batch'
  | 'history'
  | 'checkpoint'
  | 'half';

/**
 * A field that every request of its experiment carries (a memory request's `load`, a history
 * request's `history` arm and `checkpoint`, a probe's `batch`): its value, or an
 * `InvalidArgumentError` naming the request and the field when it is null. Never a guessed
 * default: a memory notebook of load 0 or a history notebook of arm A, checkpoint 0, would be
 * another request's notebook.
 *
 * @example
 * ```ts
 * const load = plannedField(request, 'load'); // number, or throws for a request without one
 * ```
 */
export function plannedField<K extends PlannedRequestExperimentField>(
  request: PlannedRequest,
  field: K,
): NonNullable<PlannedRequest[K]> {
  const value = request[field];
  if (value === null)
    throw new InvalidArgumentError(
      `plan request ${request.requestId}: ${field}`,
      `a ${request.experiment} request (step ${request.step}) needs its ${field}, and it is null; the plan was not written by this toolkit or was edited`,
    );
  return value as NonNullable<PlannedRequest[K]>;
}

/** One matched block: one world x one experiment unit across every system. */
export const PlannedBlockSchema = z.strictObject({
  blockId: z.string().min(1),
  experiment: ExperimentKindSchema,
  worldSeed: SeedSchema,
  load: z.int().min(1).nullable(),
  requestIds: z.array(z.string().min(1)),
});
/** One matched block. */
export type PlannedBlock = z.infer<typeof PlannedBlockSchema>;

/** Every registered request of a run, in scheduling order, and the blocks they form. */
export const RunPlanSchema = z.strictObject({
  kind: z.literal('run-plan'),
  schemaVersion: z.literal(1),
  requests: z.array(PlannedRequestSchema),
  blocks: z.array(PlannedBlockSchema),
});
/** Every registered request of a run and the blocks they form. */
export type RunPlan = z.infer<typeof RunPlanSchema>;

/** A request exactly as sent: messages, template, hash and UTF-8 input size. */
export const RenderedRequestSchema = z.strictObject({
  kind: z.literal('rendered-request'),
  requestId: z.string().min(1),
  systemId: z.string().min(1),
  blockId: z.string().min(1),
  task: RequestTaskSchema,
  template: z.strictObject({ name: z.string().min(1), version: z.string().min(1) }),
  messages: z.array(ChatMessageSchema),
  maxOutputTokens: z.int().min(1),
  /** SHA-256 of the RFC 8785 canonical JSON of `messages`. */
  requestSha256: Sha256Schema,
  /** UTF-8 bytes of `JSON.stringify(messages)`: the input-token upper proxy of a reservation. */
  inputBytes: CountSchema,
});
/** A request exactly as sent. */
export type RenderedRequest = z.infer<typeof RenderedRequestSchema>;

/**
 * One line of `requests.jsonl` (run-folder layout 0.2): a rendered request without its messages.
 * The messages are stored once per distinct content in `payloads/<requestSha256>.json.gz` (gzip of
 * the RFC 8785 canonical JSON of `messages`, whose SHA-256 is `requestSha256`), because prompts
 * are byte-identical across systems.
 */
export const RequestIndexEntrySchema = RenderedRequestSchema.omit({
  kind: true,
  messages: true,
}).extend({ kind: z.literal('request-index') });
/** One line of `requests.jsonl`: a rendered request whose messages live in `payloads/`. */
export type RequestIndexEntry = z.infer<typeof RequestIndexEntrySchema>;

/** The notebook after one note-writing request (or the empty starting notebook). */
export const NotebookSnapshotSchema = z.strictObject({
  kind: z.literal('notebook'),
  systemId: z.string().min(1),
  blockId: z.string().min(1),
  /** The request whose reply produced it; null for the empty starting notebook. */
  requestId: z.string().min(1).nullable(),
  /** The kept notes, exactly as later requests receive them. */
  text: z.string(),
  bytes: CountSchema,
  originalBytes: CountSchema,
  truncated: z.boolean(),
  sha256: Sha256Schema,
  /** Cap applied in bytes; null for a declared uncapped reference condition. */
  capBytes: z.int().min(0).nullable(),
});
/** The notebook after one note-writing request. */
export type NotebookSnapshot = z.infer<typeof NotebookSnapshotSchema>;

/** One entry of the failure/exclusion log. */
export const FailureLogEntrySchema = z.strictObject({
  kind: z.literal('failure'),
  at: IsoTimeSchema,
  requestId: z.string().min(1),
  attemptId: z.string().min(1).nullable(),
  systemId: z.string().min(1),
  blockId: z.string().min(1),
  /**
   * `model`: stays in the scored block as a failure; `infrastructure`: makes the block incomplete;
   * `abandoned`: possibly sent before a crash, outcome unknown; `dependency`: not sent because a
   * request it needs failed or was not sent; `excluded`: data kept out of scoring (smoke checks).
   */
  category: z.enum(['model', 'infrastructure', 'abandoned', 'dependency', 'excluded']),
  failure: FailureClassSchema.nullable(),
  detail: z.string(),
  /** Retry waits of the attempt, in milliseconds, in order. */
  retryWaitsMs: z.array(CountSchema),
});
/** One entry of the failure/exclusion log. */
export type FailureLogEntry = z.infer<typeof FailureLogEntrySchema>;

/** Whether a block can be used for comparisons. */
export const BlockStatusSchema = z.strictObject({
  blockId: z.string().min(1),
  experiment: ExperimentKindSchema,
  worldSeed: SeedSchema,
  load: z.int().min(1).nullable(),
  status: z.enum(['complete', 'incomplete', 'not_started']),
  /** Why the block is incomplete, one line per cause; empty when complete. */
  reasons: z.array(z.string()),
  requests: z.strictObject({
    total: CountSchema,
    resolved: CountSchema,
    modelFailures: CountSchema,
    infrastructureFailures: CountSchema,
    abandoned: CountSchema,
    notSent: CountSchema,
  }),
});
/** Whether a block can be used for comparisons. */
export type BlockStatus = z.infer<typeof BlockStatusSchema>;

/** Where a run stands: written at start, on every state change and at the end. */
export const RunStatusSchema = z.strictObject({
  kind: z.literal('run-status'),
  runId: z.string().min(1),
  manifestSha256: Sha256Schema,
  state: z.enum(['running', 'completed', 'stopped', 'failed']),
  startedAt: IsoTimeSchema,
  updatedAt: IsoTimeSchema,
  finishedAt: IsoTimeSchema.nullable(),
  /** How many times the run was resumed. */
  resumes: CountSchema,
  requests: z.strictObject({
    total: CountSchema,
    resolved: CountSchema,
    failed: CountSchema,
    abandoned: CountSchema,
    notSent: CountSchema,
  }),
  spend: z.strictObject({ ceilingUsd: UsdSchema, committedUsd: UsdSchema, chargedUsd: UsdSchema }),
  /** Why the run stopped early (budget ceiling, overcharge, infrastructure, error); null otherwise. */
  stop: z.strictObject({ kind: z.string().min(1), message: z.string() }).nullable(),
  blocks: z.strictObject({
    complete: CountSchema,
    incomplete: CountSchema,
    notStarted: CountSchema,
  }),
  elapsedMs: z.number().min(0),
  exitCode: z.int().min(0).nullable(),
  /**
   * The attempt log as this status saw it: its record count and the SHA-256 of its last record's
   * canonical JSON (null when empty). Anchors the hash chain: an emptied, cut or edited log no
   * longer reaches this head. Absent in runs written before the chain existed.
   */
  attemptLog: z
    .strictObject({ records: CountSchema, headSha256: Sha256Schema.nullable() })
    .optional(),
});
/** Where a run stands. */
export type RunStatus = z.infer<typeof RunStatusSchema>;

/** The result of one smoke check: excluded from scored data. */
export const SmokeResultSchema = z.strictObject({
  kind: z.literal('smoke-result'),
  systemId: z.string().min(1),
  model: z.string().min(1),
  at: IsoTimeSchema,
  passed: z.boolean(),
  checks: z.strictObject({
    allowlistResolved: z.boolean().nullable(),
    priceKnown: z.boolean().nullable(),
    replyParsed: z.boolean(),
  }),
  detail: z.string(),
  ceilingUsd: UsdSchema,
  result: ChatResultSchema.nullable(),
  evidence: z.literal('excluded'),
});
/** The result of one smoke check. */
export type SmokeResult = z.infer<typeof SmokeResultSchema>;
