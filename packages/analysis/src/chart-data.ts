import type { EvidenceClass } from '@chi/spec';
import {
  EimcStatusSchema,
  EvidenceClassSchema,
  ExperimentKindSchema,
  HistoryIdSchema,
  IsoTimeSchema,
  RatioSchema,
  SeedSchema,
  Sha256Schema,
  StratumSchema,
} from '@chi/spec/internal';
import { z } from 'zod';
import {
  BytesStoredRowSchema,
  CorpusRowSchema,
  TranscriptReplayRowSchema,
} from './chart-data-rows';

/**
 * Why an interval is absent:
 * - `fewer_than_two_complete_worlds`: the protocol omits uncertainty below two complete worlds;
 * - `no_defined_replicates`: the statistic was undefined in every bootstrap replicate;
 * - `undefined_estimate`: the statistic is undefined on the data itself (e.g. every vector invalid).
 */
export const IntervalNoteSchema = z.enum([
  'fewer_than_two_complete_worlds',
  'no_defined_replicates',
  'undefined_estimate',
]);
/** Why an interval is absent. */
export type IntervalNote = z.infer<typeof IntervalNoteSchema>;

/**
 * A point estimate with its pointwise percentile interval and the world set it rests on: worlds
 * used, worlds complete in the cell, worlds planned. `lower`/`upper` are null exactly when
 * `intervalNote` says why.
 */
export const IntervalEstimateSchema = z
  .strictObject({
    estimate: z.number().nullable(),
    lower: z.number().nullable(),
    upper: z.number().nullable(),
    intervalNote: IntervalNoteSchema.nullable(),
    /**
     * Worlds (clusters) the estimate uses: the denominator of the mean. For an estimand that
     * combines cells (a capacity curve, a divergence), the worlds complete in every cell it
     * combines, with the value defined.
     */
    worlds: z.int().min(0),
    /** Worlds whose block of this cell is complete (the cell's own complete worlds). */
    completeWorlds: z.int().min(0),
    /** Worlds planned for this cell (blocks planned). */
    plannedWorlds: z.int().min(0),
    /** Bootstrap replicates where the statistic was undefined (0 when no resampling was done). */
    undefinedReplicates: z.int().min(0),
  })
  .refine((e) => (e.intervalNote === null) === (e.lower !== null && e.upper !== null), {
    error: 'lower and upper are set exactly when intervalNote is null',
    path: ['intervalNote'],
  })
  .refine((e) => e.worlds <= e.completeWorlds && e.completeWorlds <= e.plannedWorlds, {
    error: 'worlds used <= worlds complete in the cell <= worlds planned',
    path: ['worlds'],
  });
/** A point estimate with its pointwise percentile interval. */
export type IntervalEstimate = z.infer<typeof IntervalEstimateSchema>;

/** The six Q_M factors as interval estimates. */
export const FactorEstimatesSchema = z.strictObject({
  r: IntervalEstimateSchema,
  t: IntervalEstimateSchema,
  s: IntervalEstimateSchema,
  u: IntervalEstimateSchema,
  i: IntervalEstimateSchema,
  oneMinusF: IntervalEstimateSchema,
});
/** The six Q_M factors as interval estimates. */
export type FactorEstimates = z.infer<typeof FactorEstimatesSchema>;

/**
 * Memory conditions: the evaluated notebook system, the two N=32 controls and the opt-in
 * transcript-replay baseline (`replay`: the stored encode transcript in place of the notebook).
 */
export const MemoryConditionSchema = z.enum(['notebook', 'blank', 'oracle', 'replay']);
/**
 * `notebook` (the evaluated memory system), `blank` (reset control), `oracle` (in-context
 * evidence) or `replay` (the transcript-replay baseline, at every load of an opt-in run).
 */
export type MemoryCondition = z.infer<typeof MemoryConditionSchema>;

/** True for the two controls of the control load (blank and oracle), not the replay baseline. */
export function isControlCondition(condition: MemoryCondition): boolean {
  return condition === 'blank' || condition === 'oracle';
}

/** Blocks behind a cell: planned, complete (used) and incomplete (kept, published separately). */
export const BlockCountsSchema = z.strictObject({
  planned: z.int().min(0),
  complete: z.int().min(0),
  incomplete: z.int().min(0),
  /** Planned blocks with no observation at all (not started, e.g. after a budget stop). */
  missing: z.int().min(0),
});
/** Blocks behind a cell. */
export type BlockCounts = z.infer<typeof BlockCountsSchema>;

/** One system x condition x load point of the memory capacity curve. */
export const MemoryPointSchema = z.strictObject({
  systemId: z.string().min(1),
  condition: MemoryConditionSchema,
  load: z.int().min(1),
  blocks: BlockCountsSchema,
  /**
   * The curve's world set: worlds complete at every tested load of this system and condition.
   * Every estimate of the point uses these worlds (never the load's own complete worlds), so a
   * curve never mixes world sets and its EIMC is the EIMC of the curve as drawn.
   */
  worldSeeds: z.array(SeedSchema),
  /** Q_M of the equally weighted world-mean factors: the primary estimand. */
  qualityScore: IntervalEstimateSchema,
  /** Mean over worlds of each world's own Q_M: a different quantity, labelled separately. */
  meanWithinWorldQualityScore: IntervalEstimateSchema,
  factors: FactorEstimatesSchema,
  /** Passing probes / probes per stratum, pooled over the curve's worlds (f: failures / lures). */
  strata: z.strictObject({
    r: RatioSchema,
    t: RatioSchema,
    s: RatioSchema,
    u: RatioSchema,
    i: RatioSchema,
    f: RatioSchema,
  }),
  unsupportedAffirmativeLures: RatioSchema,
  invalidLures: RatioSchema,
  exploratory: z.boolean(),
});
/** One point of the memory capacity curve. */
export type MemoryPoint = z.infer<typeof MemoryPointSchema>;

/** EIMC at one threshold for one system, with its bootstrap distribution summary. */
export const EimcEntrySchema = z.strictObject({
  systemId: z.string().min(1),
  tau: z.number().gt(0).max(1),
  value: z.int().min(1).nullable(),
  status: EimcStatusSchema,
  testedLoads: z.array(z.int().min(1)),
  passingLoads: z.array(z.int().min(1)),
  nonmonotone: z.boolean(),
  sustainedPrefix: z.int().min(1).nullable(),
  /** Worlds the curve (and so this EIMC, in the estimate and every replicate) rests on. */
  worlds: z.int().min(0),
  /** The curve's world set: the same as every point of the curve displayed beside it. */
  worldSeeds: z.array(SeedSchema),
  /** Percentile interval of EIMC over replicates with a passing load (inverted-CDF quantiles). */
  lower: z.int().min(1).nullable(),
  upper: z.int().min(1).nullable(),
  /** Replicates in which no tested load passed. */
  noPassingReplicates: z.int().min(0),
  resamples: z.int().min(0),
});
/** EIMC at one threshold for one system. */
export type EimcEntry = z.infer<typeof EimcEntrySchema>;

/** Resources spent by one system on one experiment cell (all attempts, complete or not). */
export const ResourceRowSchema = z.strictObject({
  systemId: z.string().min(1),
  experiment: ExperimentKindSchema,
  /** Memory load N; null for history and behavior. */
  load: z.int().min(1).nullable(),
  requests: z.int().min(0),
  failedRequests: z.int().min(0),
  promptTokens: z.int().min(0),
  completionTokens: z.int().min(0),
  reasoningTokens: z.int().min(0),
  /** Requests whose usage reported no token counts (their tokens are not in the sums). */
  requestsWithoutUsage: z.int().min(0),
  costUsd: z.number().min(0),
  latencyMsMedian: z.number().min(0).nullable(),
  latencyMsMax: z.number().min(0).nullable(),
});
/** Resources spent by one system on one experiment cell. */
export type ResourceRow = z.infer<typeof ResourceRowSchema>;

/** One system x history x checkpoint of the history experiment. */
export const HistoryPointSchema = z.strictObject({
  systemId: z.string().min(1),
  history: HistoryIdSchema,
  checkpoint: z.int().min(0).max(4),
  blocks: BlockCountsSchema,
  /** Share of decisions equal to the warranted answer, world mean. */
  accuracy: IntervalEstimateSchema,
  /** Share of decisions that are an explicit unknown, world mean. */
  unknownRate: IntervalEstimateSchema,
  /** Invalid decisions, pooled over complete worlds (excluded from distances). */
  invalid: RatioSchema,
  /** Worlds whose decision vector at this checkpoint is fully valid. */
  validVectors: z.int().min(0),
});
/** One system x history x checkpoint of the history experiment. */
export type HistoryPoint = z.infer<typeof HistoryPointSchema>;

/** Distances between histories at one checkpoint; null estimates where no world has valid vectors. */
export const HistoryDistanceSchema = z.strictObject({
  systemId: z.string().min(1),
  checkpoint: z.int().min(0).max(4),
  /**
   * Worlds complete with fully valid decision vectors for A, B and A2 at this checkpoint: the
   * one world set of all three numbers, so `divergence` is exactly `distanceAB - distanceAA2`.
   */
  worldSeeds: z.array(SeedSchema),
  distanceAB: IntervalEstimateSchema,
  distanceAA2: IntervalEstimateSchema,
  /** Experience divergence D(A,B) - D(A,A2), computed as the difference of the two means. */
  divergence: IntervalEstimateSchema,
});
/** Distances between histories at one checkpoint. */
export type HistoryDistance = z.infer<typeof HistoryDistanceSchema>;

/** Continuity and correction response of one history. */
export const HistoryDynamicsSchema = z.strictObject({
  systemId: z.string().min(1),
  history: HistoryIdSchema,
  /** 1 - D(checkpoint 2, checkpoint 3): what persists across the neutral interval. */
  continuity: IntervalEstimateSchema,
  /** Accuracy at checkpoint 4 minus accuracy at checkpoint 3, both against the corrected rule. */
  correctionResponse: IntervalEstimateSchema,
});
/** Continuity and correction response of one history. */
export type HistoryDynamics = z.infer<typeof HistoryDynamicsSchema>;

/** One world's decision vector for one history at one checkpoint (A = 0, unknown = 0.5, B = 1). */
export const HistoryVectorSchema = z.strictObject({
  systemId: z.string().min(1),
  worldSeed: SeedSchema,
  history: HistoryIdSchema,
  checkpoint: z.int().min(0).max(4),
  /** Whether the world's history block is complete (only complete blocks enter the estimates). */
  blockComplete: z.boolean(),
  /** One coordinate per environment; null marks an invalid decision (never a distance). */
  coordinates: z.array(z.union([z.literal(0), z.literal(0.5), z.literal(1)]).nullable()),
});
/** One world's decision vector for one history at one checkpoint. */
export type HistoryVector = z.infer<typeof HistoryVectorSchema>;

/** One behavioral task indicator of one system. */
export const BehaviorPointSchema = z.strictObject({
  systemId: z.string().min(1),
  /** R, C, A, I task accuracy, or `A-frame-change`: share of matched pairs whose choice changed. */
  indicator: z.enum(['R', 'C', 'A', 'I', 'A-frame-change']),
  blocks: BlockCountsSchema,
  value: IntervalEstimateSchema,
  /** Pooled over complete worlds: correct items / items, or changed pairs / valid pairs. */
  pooled: RatioSchema,
  /** Invalid answers (or pairs with an invalid member), pooled. */
  invalid: RatioSchema,
});
/** One behavioral task indicator. */
export type BehaviorPoint = z.infer<typeof BehaviorPointSchema>;

/**
 * Probe-wording invariance of one behavioral feature of one system: the share of paired items
 * (the same item asked under wordings 1 and 2 in the same world) whose coded outcome agrees, as a
 * mean over worlds with its world-cluster interval. R, C, A, I code each item's verdict;
 * `A-frame-change` codes each matched pair's frame-induced change (pairs valid in both wordings).
 */
export const WordingAgreementSchema = z.strictObject({
  systemId: z.string().min(1),
  feature: z.enum(['R', 'C', 'A', 'I', 'A-frame-change']),
  /** Mean over worlds of each world's agreement, with its percentile interval. */
  agreement: IntervalEstimateSchema,
  /** Pooled over the estimate's worlds: agreeing items (or pairs) / paired items (or pairs). */
  pooled: RatioSchema,
  /** The worlds the estimate uses: complete behavior blocks with a paired item of the feature. */
  worldSeeds: z.array(SeedSchema),
});
/** Probe-wording invariance of one behavioral feature of one system. */
export type WordingAgreement = z.infer<typeof WordingAgreementSchema>;

/** Count of memory probes of one failure-taxonomy reason. */
export const TaxonomyCountSchema = z.strictObject({
  systemId: z.string().min(1),
  condition: MemoryConditionSchema,
  load: z.int().min(1),
  stratum: StratumSchema,
  reason: z.string().min(1),
  /** Whether the reason is a pass (correct, correct abstention) or a failure. */
  pass: z.boolean(),
  count: z.int().min(0),
});
/** Count of memory probes of one failure-taxonomy reason. */
export type TaxonomyCount = z.infer<typeof TaxonomyCountSchema>;

/** One matched block as the report lists it (every block, complete or not). */
export const BlockRowSchema = z.strictObject({
  blockId: z.string().min(1),
  experiment: ExperimentKindSchema,
  worldSeed: SeedSchema,
  load: z.int().min(1).nullable(),
  status: z.enum(['complete', 'incomplete', 'not_started']),
  reasons: z.array(z.string()),
});
/** One matched block as the report lists it. */
export type BlockRow = z.infer<typeof BlockRowSchema>;

/** Failure-log entries counted by category and failure class. */
export const FailureCountSchema = z.strictObject({
  category: z.string().min(1),
  failure: z.string().nullable(),
  count: z.int().min(1),
});
/** Failure-log entries counted by category and failure class. */
export type FailureCount = z.infer<typeof FailureCountSchema>;

/** One smoke check: excluded data, listed for transparency. */
export const SmokeRowSchema = z.strictObject({
  systemId: z.string().min(1),
  at: IsoTimeSchema,
  passed: z.boolean(),
  detail: z.string(),
});
/** One smoke check. */
export type SmokeRow = z.infer<typeof SmokeRowSchema>;

/** One evaluated system as the report names it. */
export const ReportSystemSchema = z.strictObject({
  id: z.string().min(1),
  model: z.string().min(1),
  kind: z.string().min(1),
  evidenceClass: EvidenceClassSchema,
  /** A declared reference condition whose notebook is not capped (never an evaluated model). */
  uncappedNotebook: z.boolean(),
  /** Who held the memory (issue 36): `system`, or absent for the runner's notebook. */
  memory: z.literal('system').optional(),
  /**
   * The instance-control extension the system declared (`chi-instance-control-v1`): its export
   * reports the bytes it stores. Absent: none (bytes stored unknown).
   */
  instanceControl: z.literal('chi-instance-control-v1').optional(),
  /** Provider allowlist as frozen in the manifest (empty when the transport has none). */
  providers: z.array(z.string().min(1)),
  /**
   * Quantization of each allowlisted endpoint as the catalog fetched before freezing reports it
   * (`tag: quantization`, `unknown` when the catalog gives none); absent without a catalog entry
   * (scripted systems, OpenAI-compatible endpoints, runs without `catalog.json`).
   */
  quantization: z.array(z.string().min(1)).optional(),
  /** Nominal reasoning effort sent, or null when none is sent. */
  reasoningEffort: z.string().nullable(),
  /** Output cap in tokens, including reasoning where the provider counts it. */
  maxOutputTokens: z.int().min(1),
  /** Declared safety price (the reservation takes the larger of it and the catalog price). */
  safetyPrice: z
    .strictObject({
      inputUsdPerToken: z.number().min(0),
      outputUsdPerToken: z.number().min(0),
      requestUsd: z.number().min(0),
    })
    .nullable(),
  /**
   * The model and provider identifiers the endpoint returned, from the attempt records, with the
   * number of responses that carried each pair (null: the response named none).
   */
  returned: z.array(
    z.strictObject({
      model: z.string().nullable(),
      provider: z.string().nullable(),
      responses: z.int().min(1),
    }),
  ),
});
/** One evaluated system as the report names it. */
export type ReportSystem = z.infer<typeof ReportSystemSchema>;

/** Facts about the run that every page of the report repeats. */
export const RunFactsSchema = z.strictObject({
  protocol: z.string().min(1),
  runId: z.string().min(1),
  manifestSha256: Sha256Schema,
  /** The manifest's evidence class. */
  evidenceClass: EvidenceClassSchema,
  systems: z.array(ReportSystemSchema),
  worldSeeds: z.array(SeedSchema),
  /** The notebook cap of every capped system, in UTF-8 bytes (the manifest's notebookCapBytes). */
  notebookCapBytes: z.int().min(1),
  /** From the run (manifest creation and last attempt), never the time the release was written. */
  createdAt: IsoTimeSchema,
  lastActivityAt: IsoTimeSchema.nullable(),
  analysis: z.strictObject({
    seed: SeedSchema,
    resamples: z.int().min(1),
    level: z.number().gt(0).lt(1),
    taus: z.array(z.number().gt(0).max(1)),
    /** The history checkpoint the summary reads, from the manifest (3 for older manifests). */
    primaryCheckpoint: z.int().min(0),
    /** Cells with fewer complete worlds than this are captioned "exploratory". */
    exploratoryBelowWorlds: z.int().min(1),
  }),
  /** The run-wide transport settings frozen in the manifest. */
  transport: z.strictObject({
    ceilingUsd: z.number().min(0),
    deadlineMs: z.int().min(1),
    maxRetries: z.int().min(0),
    retryAfterCapMs: z.int().min(0),
    reservationMargin: z.number().min(0),
  }),
  /** The human calibration (null: none, so CHI is null); null too for manifests that predate it. */
  calibrationId: z.string().nullable(),
  /** Memory, reset and scheduler policies from the manifest; null for manifests that predate them. */
  policies: z
    .strictObject({ memory: z.string(), reset: z.string(), scheduler: z.string() })
    .nullable(),
  /** Feature schemas with their versions from the manifest (empty for manifests that predate them). */
  featureSchemas: z.array(
    z.strictObject({
      id: z.string().min(1),
      version: z.int().min(1),
      features: z.array(z.string().min(1)),
      coding: z.string().min(1),
    }),
  ),
});
/** Facts about the run that every page of the report repeats. */
export type RunFacts = z.infer<typeof RunFactsSchema>;

/**
 * Everything a release displays, as numbers: the single source of the figures, tables and
 * report, and what `chi verify` recomputes and compares.
 */
/** What a paired comparison compares (docs/protocol.md, "Paired comparisons"). */
export const ComparisonQuantitySchema = z.enum([
  'qualityScore',
  'eimc',
  'excessDivergence',
  'behavior',
]);
/** `qualityScore` (Q_M at one load), `eimc` (at one tau), `excessDivergence` or `behavior`. */
export type ComparisonQuantity = z.infer<typeof ComparisonQuantitySchema>;

/**
 * How an EIMC difference relates to the true one: `none` (both statuses `capacity`: exact on the
 * grid), `toward_zero` (a side is censored: the coded difference is a bound, the true one at
 * least as far from zero in its direction), `both_same_side` (both above or both below the grid:
 * not comparable, no test). Null for every other quantity.
 */
export const ComparisonCensoringSchema = z.enum(['none', 'toward_zero', 'both_same_side']);
/** How an EIMC difference relates to the true one (see {@link ComparisonCensoringSchema}). */
export type ComparisonCensoring = z.infer<typeof ComparisonCensoringSchema>;

/**
 * One paired difference A − B between two systems over the worlds complete in both systems'
 * cells, bootstrapped in the run's one bootstrap (the same multiset of worlds for both systems in
 * every replicate), with its two-sided bootstrap p-value and the Holm-adjusted p-value over every
 * tested row of the release.
 */
export const ComparisonRowSchema = z.strictObject({
  systemA: z.string(),
  systemB: z.string(),
  /** True when either system is not a live model: a comparison of scripted baselines, not a ranking. */
  scripted: z.boolean(),
  quantity: ComparisonQuantitySchema,
  /** Human-readable name of the compared number, e.g. `Q_M at N = 32`. */
  label: z.string(),
  load: z.int().nullable(),
  tau: z.number().nullable(),
  checkpoint: z.int().nullable(),
  indicator: z.string().nullable(),
  /** A's and B's values over the paired worlds (EIMC: the grid values, null for no passing load). */
  valueA: z.number().nullable(),
  valueB: z.number().nullable(),
  statusA: EimcStatusSchema.nullable(),
  statusB: EimcStatusSchema.nullable(),
  censoring: ComparisonCensoringSchema.nullable(),
  difference: IntervalEstimateSchema,
  /** Two-sided bootstrap p-value of a zero difference; null where nothing is tested. */
  pValue: z.number().nullable(),
  /** Holm-adjusted over every row with a p-value. */
  adjustedPValue: z.number().nullable(),
  /** adjustedPValue < 1 − level: the difference holds family-wise; null where nothing is tested. */
  differsFamilyWise: z.boolean().nullable(),
  worldSeeds: z.array(SeedSchema),
});
/** One paired difference between two systems. */
export type ComparisonRow = z.infer<typeof ComparisonRowSchema>;

/** The paired comparisons of a run: which pairs, which adjustment, and the rows. */
export const ComparisonsSchema = z.strictObject({
  /** The named reference (`--compare-to`), or null: every pair of systems in manifest order. */
  referenceSystem: z.string().nullable(),
  /** The family-wise adjustment applied across every tested row. */
  adjustment: z.literal('holm'),
  /** Rows with a p-value: the family the adjustment covers. */
  family: z.int().min(0),
  rows: z.array(ComparisonRowSchema),
});
/** The paired comparisons of a run. */
export type Comparisons = z.infer<typeof ComparisonsSchema>;

export const ChartDataSchema = z.strictObject({
  kind: z.literal('chi-chart-data'),
  schemaVersion: z.literal(1),
  run: RunFactsSchema,
  memory: z.array(MemoryPointSchema),
  eimc: z.array(EimcEntrySchema),
  resources: z.array(ResourceRowSchema),
  /**
   * Per memory load, the encode request's bytes and reported prompt tokens (issue 31). Optional:
   * chart data written before it was recorded parses without it.
   */
  corpus: z.array(CorpusRowSchema).optional(),
  history: z.array(HistoryPointSchema),
  historyDistances: z.array(HistoryDistanceSchema),
  historyDynamics: z.array(HistoryDynamicsSchema),
  /** Every world's decision vectors (complete and incomplete blocks, flagged). */
  historyVectors: z.array(HistoryVectorSchema),
  behavior: z.array(BehaviorPointSchema),
  taxonomy: z.array(TaxonomyCountSchema),
  /** Every block with its status, the failure log counted, and the (excluded) smoke checks. */
  missingness: z.strictObject({
    blocks: z.array(BlockRowSchema),
    failures: z.array(FailureCountSchema),
    smoke: z.array(SmokeRowSchema),
  }),
  /** CHI is null throughout the pilot: no human calibration exists. */
  chi: z.strictObject({ value: z.null(), reason: z.string().min(1) }),
  /**
   * Storage and replay costs of the transcript-replay baseline, per system and load; absent when
   * the run has no replay condition (its Q_M is in `memory`, condition `replay`).
   */
  transcriptReplay: z.array(TranscriptReplayRowSchema).optional(),
  /**
   * Bytes stored by systems that keep their own memory and declare the instance-control
   * extension, from each instance's export at the end of its trajectory (issue 36); absent when
   * no attempt records any.
   */
  bytesStored: z.array(BytesStoredRowSchema).optional(),
  /**
   * Per-feature agreement between the declared wordings of the behavioral items; absent when the
   * run asks one wording only.
   */
  wordingAgreement: z.array(WordingAgreementSchema).optional(),
  /** Paired differences between systems; absent when the run has fewer than two systems. */
  comparisons: ComparisonsSchema.optional(),
});
/** Everything a release displays, as numbers. */
export type ChartData = z.infer<typeof ChartDataSchema>;

/** Evidence classes that are not measurements of a model. */
export function isScriptedOrSynthetic(evidenceClass: EvidenceClass): boolean {
  return evidenceClass !== 'live_model';
}
