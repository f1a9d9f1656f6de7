import { z } from 'zod';
import { StratumSchema } from './memory';
import { CountSchema, UnitIntervalSchema } from './primitives';

/** How one requested answer came back. */
export const AnswerStatusSchema = z.enum([
  'answered',
  'abstained',
  'missing',
  'duplicate',
  'invalid',
]);
/** How one requested answer came back: answered, abstained (both null), missing, duplicate or invalid. */
export type AnswerStatus = z.infer<typeof AnswerStatusSchema>;

/** The classification of one requested probe ID in a reply. */
export const ClassifiedAnswerSchema = z.strictObject({
  id: z.string().min(1),
  status: AnswerStatusSchema,
  /** The answered value (status `answered` only), otherwise null. */
  value: z.string().nullable(),
  /** The answered source (status `answered` only), otherwise null. */
  source: z.string().nullable(),
  /** Why an answer is invalid, missing or duplicate; null when answered or abstained. */
  detail: z.string().nullable(),
});
/** The classification of one requested probe ID in a reply. */
export type ClassifiedAnswer = z.infer<typeof ClassifiedAnswerSchema>;

/** A raw reply turned into one classified answer per requested ID, in request order. */
export const ParsedProbeReplySchema = z.strictObject({
  answers: z.array(ClassifiedAnswerSchema),
  /** Whether a JSON answer set was found at all. */
  foundAnswerSet: z.boolean(),
  /** Answers for IDs that were not requested: ignored, but counted. */
  unrequestedCount: CountSchema,
  /** Why no answer set was found, or other reply-level notes. */
  notes: z.array(z.string()),
});
/** A raw reply turned into one classified answer per requested ID. */
export type ParsedProbeReply = z.infer<typeof ParsedProbeReplySchema>;

/** A rate with the numbers it came from. `rate` is null when the denominator is zero. */
export const RatioSchema = z
  .strictObject({
    numerator: CountSchema,
    denominator: CountSchema,
    rate: UnitIntervalSchema.nullable(),
  })
  .refine((ratio) => ratio.numerator <= ratio.denominator, {
    error: 'numerator cannot exceed denominator',
    path: ['numerator'],
  })
  .refine((ratio) => (ratio.denominator === 0 ? ratio.rate === null : ratio.rate !== null), {
    error: 'rate is null exactly when the denominator is 0',
    path: ['rate'],
  });
/** A rate with the numbers it came from. */
export type Ratio = z.infer<typeof RatioSchema>;

/** The lure (absent-key) stratum broken into mutually exclusive outcomes. */
export const LureBreakdownSchema = z.strictObject({
  total: CountSchema,
  correctAbstention: CountSchema,
  /** Affirmative answer (a value) to a key that was never recorded. */
  unsupportedAffirmative: CountSchema,
  /** Invalid, missing or duplicate answers to a lure. */
  invalid: CountSchema,
  /** f = (unsupportedAffirmative + invalid) / total. */
  f: RatioSchema,
  /** Raw false-affirmative rate: unsupportedAffirmative / total. */
  falseAffirmativeRate: RatioSchema,
  /** invalid / total. */
  invalidLureRate: RatioSchema,
});
/** The lure stratum broken into mutually exclusive outcomes. */
export type LureBreakdown = z.infer<typeof LureBreakdownSchema>;

/**
 * The six quality factors, each in [0, 1]: r, t, s, u, i and `oneMinusF` = 1 - f. Q_M is their
 * weighted geometric mean.
 */
export const QualityFactorsSchema = z.strictObject({
  r: UnitIntervalSchema,
  t: UnitIntervalSchema,
  s: UnitIntervalSchema,
  u: UnitIntervalSchema,
  i: UnitIntervalSchema,
  oneMinusF: UnitIntervalSchema,
});
/** The six quality factors r, t, s, u, i and 1 - f. */
export type QualityFactors = z.infer<typeof QualityFactorsSchema>;
/** The factor names in canonical order. */
export const FACTOR_NAMES = ['r', 't', 's', 'u', 'i', 'oneMinusF'] as const;
/** One factor name. */
export type FactorName = (typeof FACTOR_NAMES)[number];

/** Weights of the six factors in Q_M. They must sum to 1; the baseline is 1/6 each. */
export const QualityAlphasSchema = z
  .strictObject({
    r: UnitIntervalSchema,
    t: UnitIntervalSchema,
    s: UnitIntervalSchema,
    u: UnitIntervalSchema,
    i: UnitIntervalSchema,
    oneMinusF: UnitIntervalSchema,
  })
  .refine((a) => Math.abs(a.r + a.t + a.s + a.u + a.i + a.oneMinusF - 1) <= 1e-9, {
    error: 'the six alphas must sum to 1',
  });
/** Weights of the six factors in Q_M. */
export type QualityAlphas = z.infer<typeof QualityAlphasSchema>;

/** The score of one world's probe set: per-stratum results, lure breakdown, factors and Q_M. */
export const MemoryScoreSchema = z.strictObject({
  strata: z.record(StratumSchema, RatioSchema),
  lures: LureBreakdownSchema,
  factors: QualityFactorsSchema,
  /** Q_M of this world alone; null only if a stratum had no probes. */
  qualityScore: UnitIntervalSchema.nullable(),
  unrequestedCount: CountSchema,
});
/** The score of one world's probe set. */
export type MemoryScore = z.infer<typeof MemoryScoreSchema>;

/** One tested load of a capacity curve. */
export const CapacityPointSchema = z.strictObject({
  load: z.int().min(1),
  /** Q_M of the equally weighted world-mean factors (the primary estimand). */
  qualityScore: UnitIntervalSchema,
  factors: QualityFactorsSchema,
  /** Number of worlds averaged. */
  worlds: CountSchema,
});
/** One tested load of a capacity curve. */
export type CapacityPoint = z.infer<typeof CapacityPointSchema>;

/** Q_M(N) over a finite grid of tested loads, in increasing load order. */
export const CapacityCurveSchema = z
  .array(CapacityPointSchema)
  .refine((points) => points.every((p, k) => k === 0 || p.load > (points[k - 1]?.load ?? 0)), {
    error: 'loads must be strictly increasing',
  });
/** Q_M(N) over a finite grid of tested loads. */
export type CapacityCurve = z.infer<typeof CapacityCurveSchema>;

/** How an EIMC value should be read. */
export const EimcStatusSchema = z.enum(['capacity', 'lower_bound', 'no_passing_load']);
/** `capacity`, `lower_bound` (largest tested load passes: right-censored) or `no_passing_load`. */
export type EimcStatus = z.infer<typeof EimcStatusSchema>;

/** EIMC at one threshold over a finite grid. */
export const EimcResultSchema = z
  .strictObject({
    tau: UnitIntervalSchema,
    /** Largest tested load with Q_M >= tau; null (never 0) when no load passes. */
    value: z.int().min(1).nullable(),
    status: EimcStatusSchema,
    testedLoads: z.array(z.int().min(1)),
    passingLoads: z.array(z.int().min(1)),
    /** True when a failing load lies below a passing one. */
    nonmonotone: z.boolean(),
    /** Largest load such that it and every smaller tested load pass; null if the smallest fails. */
    sustainedPrefix: z.int().min(1).nullable(),
  })
  .refine((r) => (r.status === 'no_passing_load') === (r.value === null), {
    error: 'value is null exactly when status is no_passing_load',
    path: ['value'],
  });
/** EIMC at one threshold over a finite grid. */
export type EimcResult = z.infer<typeof EimcResultSchema>;
