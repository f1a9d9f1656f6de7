import { z } from 'zod';
import { BehavioralAxisSchema, FrameSchema } from './behavior';
import { CheckpointSchema, DecisionSchema, HistoryIdSchema, ValidAnswerSchema } from './history';
import { AuthoritySchema, StratumSchema } from './memory';
import { CountSchema, HexValueSchema, IsoTimeSchema } from './primitives';
import { ClassifiedAnswerSchema } from './scores';
import { ClassifiedTaskAnswerSchema } from './task-replies';

/** Whether a probe or item passed. */
export const VerdictSchema = z.enum(['pass', 'fail']);
/** Whether a probe or item passed. */
export type Verdict = z.infer<typeof VerdictSchema>;

/**
 * The fixed failure taxonomy of memory probes. Exactly one reason per probe; `correct` and
 * `correct_abstention` are the only passing reasons.
 *
 * - `correct`: the winning value (and, in stratum s, its source).
 * - `correct_abstention`: explicit abstention where the correct answer is unknown (a lure, or an
 *   as-of question with no eligible record).
 * - `over_abstained`: abstained although the key has a winning record.
 * - `stale`: the value of an older eligible record of the same key.
 * - `authority_trap`: the value of a later, lower-authority eligible record of the same key.
 * - `as_of_error`: on an as-of question, the value of a record of the same key dated after the cutoff.
 * - `neighbour`: the value of a record of a different key.
 * - `source_mismatch`: stratum s only, right value with a different source.
 * - `invented`: a value found in no record.
 * - `lure_recorded_value`: on a lure, a value recorded for another key.
 * - `lure_invented_value`: on a lure, a value found in no record.
 * - `invalid_answer`, `missing_answer`, `duplicate_answer`: the answer's parse status.
 */
export const MEMORY_TRACE_REASONS = [
  'correct',
  'correct_abstention',
  'over_abstained',
  'stale',
  'authority_trap',
  'as_of_error',
  'neighbour',
  'source_mismatch',
  'invented',
  'lure_recorded_value',
  'lure_invented_value',
  'invalid_answer',
  'missing_answer',
  'duplicate_answer',
] as const;
/** The fixed failure taxonomy of memory probes. */
export const MemoryTraceReasonSchema = z.enum(MEMORY_TRACE_REASONS);
/** One reason of the memory failure taxonomy. */
export type MemoryTraceReason = z.infer<typeof MemoryTraceReasonSchema>;

/** A record as shown in a trace. */
export const TracedRecordSchema = z.strictObject({
  key: z.string().min(1),
  value: HexValueSchema,
  source: z.string().min(1),
  eventTime: IsoTimeSchema,
  authority: AuthoritySchema,
});
/** A record as shown in a trace. */
export type TracedRecord = z.infer<typeof TracedRecordSchema>;

/** Why one memory probe passed or failed, with the evidence to check it by hand. */
export const MemoryProbeTraceSchema = z.strictObject({
  probeId: z.string().min(1),
  stratum: StratumSchema,
  key: z.string().min(1),
  /** The cutoff of an as-of question; null for current state. */
  asOf: IsoTimeSchema.nullable(),
  /** Records of the key with eventTime <= cutoff (all, when no cutoff), in precedence order. */
  eligibleRecords: z.array(TracedRecordSchema),
  /** Index of the winner in `eligibleRecords` (always 0 when present); null when none is eligible. */
  winnerIndex: z.literal(0).nullable(),
  /** Records of the key dated after the cutoff, in precedence order (empty without a cutoff). */
  excludedByCutoff: z.array(TracedRecordSchema),
  expectedValue: HexValueSchema.nullable(),
  expectedSource: z.string().min(1).nullable(),
  answer: ClassifiedAnswerSchema,
  verdict: VerdictSchema,
  reason: MemoryTraceReasonSchema,
  /** The record a wrong value came from (stale, authority trap, as-of error, neighbour, lure). */
  matchedRecord: TracedRecordSchema.nullable(),
});
/** Why one memory probe passed or failed. */
export type MemoryProbeTrace = z.infer<typeof MemoryProbeTraceSchema>;

const ReasonCounts = z.record(MemoryTraceReasonSchema, CountSchema);

/** Counts of every memory reason per stratum and in total (zero-filled). */
export const FailureTaxonomySchema = z.strictObject({
  probes: CountSchema,
  byStratum: z.record(StratumSchema, ReasonCounts),
  total: ReasonCounts,
});
/** Counts of every memory reason per stratum and in total. */
export type FailureTaxonomy = z.infer<typeof FailureTaxonomySchema>;

/**
 * Reasons of a history decision: `correct`; `wrong_option` (the other option was warranted);
 * `unknown_when_known` (explicit unknown although an option was warranted); `option_when_unknown`
 * (an option although unknown was warranted); `invalid_decision`.
 */
export const HISTORY_TRACE_REASONS = [
  'correct',
  'wrong_option',
  'unknown_when_known',
  'option_when_unknown',
  'invalid_decision',
] as const;
/** Reasons of a history decision. */
export const HistoryTraceReasonSchema = z.enum(HISTORY_TRACE_REASONS);
/** One reason of a history decision. */
export type HistoryTraceReason = z.infer<typeof HistoryTraceReasonSchema>;

/** Why one history decision was right or wrong. */
export const HistoryItemTraceSchema = z.strictObject({
  history: HistoryIdSchema,
  checkpoint: CheckpointSchema,
  environmentIndex: z.int().min(0),
  expected: ValidAnswerSchema,
  answer: DecisionSchema,
  verdict: VerdictSchema,
  reason: HistoryTraceReasonSchema,
});
/** Why one history decision was right or wrong. */
export type HistoryItemTrace = z.infer<typeof HistoryItemTraceSchema>;

/**
 * Reasons of a behavioral item: `correct`; `wrong_exact_answer` (R); `wrong_choice` (C);
 * `constraint_violated` (I: a valid option other than the only one meeting every constraint);
 * `lower_expected_value_choice` (A); `not_an_option` (a choice answer naming no option);
 * `abstained`; `invalid_answer`; `missing_answer`; `duplicate_answer`.
 */
export const BEHAVIOR_TRACE_REASONS = [
  'correct',
  'wrong_exact_answer',
  'wrong_choice',
  'constraint_violated',
  'lower_expected_value_choice',
  'not_an_option',
  'abstained',
  'invalid_answer',
  'missing_answer',
  'duplicate_answer',
] as const;
/** Reasons of a behavioral item. */
export const BehaviorTraceReasonSchema = z.enum(BEHAVIOR_TRACE_REASONS);
/** One reason of a behavioral item. */
export type BehaviorTraceReason = z.infer<typeof BehaviorTraceReasonSchema>;

/** Why one behavioral item was right or wrong. */
export const BehaviorItemTraceSchema = z.strictObject({
  itemId: z.string().min(1),
  axis: BehavioralAxisSchema,
  half: z.union([z.literal(1), z.literal(2)]),
  pairId: z.string().nullable(),
  frame: FrameSchema.nullable(),
  expected: z.string().min(1),
  constraints: z.array(z.string().min(1)),
  answer: ClassifiedTaskAnswerSchema,
  /** Position of the option the answer named (choice items); null otherwise. */
  chosenOption: z.int().min(0).nullable(),
  verdict: VerdictSchema,
  reason: BehaviorTraceReasonSchema,
});
/** Why one behavioral item was right or wrong. */
export type BehaviorItemTrace = z.infer<typeof BehaviorItemTraceSchema>;
