import { z } from 'zod';
import { GeneratorInfoSchema } from './memory';
import { CountSchema, SeedSchema } from './primitives';

/** The four behavioral task axes of the pilot: R reasoning, C goal-directed choice, A framing, I integration. */
export const BehavioralAxisSchema = z.enum(['R', 'C', 'A', 'I']);
/** A behavioral task axis. */
export type BehavioralAxis = z.infer<typeof BehavioralAxisSchema>;

/** Frame of an A item. Both frames of a pair have identical outcomes. */
export const FrameSchema = z.enum(['positive', 'negative']);
/** Frame of an A item. */
export type Frame = z.infer<typeof FrameSchema>;

const IdSchema = z.string().min(1);

/**
 * R, symbolic rule: every symbol of the string is replaced by its rule's right-hand side, all
 * symbols at once (parallel rewriting), `steps` times starting from `start`. The exact answer is
 * the final string. Every symbol of `symbols` has exactly one rule.
 */
export const SymbolRewriteFactsSchema = z.strictObject({
  kind: z.literal('symbol-rewrite'),
  symbols: z.array(z.string().length(1)).min(2),
  rules: z.array(z.strictObject({ from: z.string().length(1), to: z.string().min(1) })).min(2),
  start: z.string().min(1),
  steps: z.int().min(1),
});
/** R, symbolic rule: parallel rewriting of `start`, `steps` times. */
export type SymbolRewriteFacts = z.infer<typeof SymbolRewriteFactsSchema>;

/**
 * R, counterfactual arithmetic: an operator `a ∘ b` is defined as
 * `leftCoefficient * a + rightCoefficient * b + constant` (not ordinary addition). With operands
 * `[x, y, z]`, grouping `left` asks for `(x ∘ y) ∘ z` and `right` for `x ∘ (y ∘ z)`. The exact
 * answer is the integer result in decimal.
 */
export const CounterfactualOperatorFactsSchema = z.strictObject({
  kind: z.literal('counterfactual-operator'),
  operator: z.strictObject({
    leftCoefficient: z.int(),
    rightCoefficient: z.int(),
    constant: z.int(),
  }),
  operands: z.tuple([z.int(), z.int(), z.int()]),
  grouping: z.enum(['left', 'right']),
});
/** R, counterfactual arithmetic on a generated operator. */
export type CounterfactualOperatorFacts = z.infer<typeof CounterfactualOperatorFactsSchema>;

/**
 * C, next action under an information gap. Goal: commit to the candidate that works, which pays
 * `goal.rewardCredits`; exactly one candidate works, with the stated probabilities (summing to
 * 100). Before committing, the agent may take `informationAction`, which costs
 * `informationCostCredits` from `budgetCredits` (it cannot exceed the budget) and reveals which
 * candidate works. The right next action maximizes expected net credits within the budget.
 */
export const InformationGapFactsSchema = z.strictObject({
  kind: z.literal('information-gap'),
  goal: z.strictObject({ rewardCredits: z.int().min(1) }),
  budgetCredits: CountSchema,
  informationCostCredits: z.int().min(1),
  /** The option ID that buys the missing information. */
  informationAction: IdSchema,
  candidates: z
    .array(z.strictObject({ id: IdSchema, workingProbabilityPercent: z.int().min(0).max(100) }))
    .length(2),
});
/** C, next action under an information gap, with goal, budget and cost of information. */
export type InformationGapFacts = z.infer<typeof InformationGapFactsSchema>;

/** A sure option of an A item: `units` for certain. */
export const SureOptionSchema = z.strictObject({
  id: IdSchema,
  kind: z.literal('sure'),
  units: CountSchema,
});
/** A gamble of an A item: `unitsWithProbability` with `probabilityPercent`, else `unitsOtherwise`. */
export const GambleOptionSchema = z.strictObject({
  id: IdSchema,
  kind: z.literal('gamble'),
  probabilityPercent: z.int().min(1).max(99),
  unitsWithProbability: CountSchema,
  unitsOtherwise: CountSchema,
});

/**
 * A, an expected-value choice in one frame. `stakeUnits` are at stake; under `measure: 'kept'`
 * (the positive frame) option amounts are units kept, under `measure: 'lost'` (the negative
 * frame) units lost. Both frames of a pair describe identical final outcomes with the same option
 * IDs in the same order; one option has the strictly better expected outcome.
 */
export const FramedChoiceFactsSchema = z.strictObject({
  kind: z.literal('framed-choice'),
  frame: FrameSchema,
  stakeUnits: z.int().min(1),
  measure: z.enum(['kept', 'lost']),
  options: z.array(z.discriminatedUnion('kind', [SureOptionSchema, GambleOptionSchema])).length(2),
});
/** A, an expected-value choice in one frame. */
export type FramedChoiceFacts = z.infer<typeof FramedChoiceFactsSchema>;

/** One integer attribute comparison every acceptable answer must satisfy. */
export const SelectionConstraintSchema = z.strictObject({
  /** Self-describing ID, e.g. `costCredits<=250`; the answer key lists these. */
  id: IdSchema,
  attribute: IdSchema,
  comparison: z.enum(['at-most', 'at-least']),
  limit: z.int(),
});
/** One declared constraint of an I item. */
export type SelectionConstraint = z.infer<typeof SelectionConstraintSchema>;

/**
 * I, a decision integrating several supplied records under declared constraints: each record
 * gives one attribute of the candidates; the answer is the candidate that satisfies every
 * constraint and is best on `objective`. Each constraint is binding: dropping any one changes
 * the answer. Records may include an attribute no constraint mentions.
 */
export const ConstrainedSelectionFactsSchema = z.strictObject({
  kind: z.literal('constrained-selection'),
  candidates: z.array(IdSchema).min(2),
  records: z
    .array(
      z.strictObject({
        id: IdSchema,
        source: IdSchema,
        attribute: IdSchema,
        values: z.array(z.strictObject({ candidate: IdSchema, value: z.int() })).min(1),
      }),
    )
    .min(2),
  constraints: z.array(SelectionConstraintSchema).min(1),
  objective: z.strictObject({ attribute: IdSchema, direction: z.enum(['maximize', 'minimize']) }),
});
/** I, a decision integrating several records under declared constraints. */
export type ConstrainedSelectionFacts = z.infer<typeof ConstrainedSelectionFactsSchema>;

/**
 * The machine-readable task data of a behavioral item, one shape per task kind (`kind`
 * discriminates). R items use `symbol-rewrite` or `counterfactual-operator`, C items
 * `information-gap`, A items `framed-choice`, I items `constrained-selection`.
 */
export const BehavioralFactsSchema = z.discriminatedUnion('kind', [
  SymbolRewriteFactsSchema,
  CounterfactualOperatorFactsSchema,
  InformationGapFactsSchema,
  FramedChoiceFactsSchema,
  ConstrainedSelectionFactsSchema,
]);
/** The machine-readable task data of a behavioral item. */
export type BehavioralFacts = z.infer<typeof BehavioralFactsSchema>;

/** Which fact kinds each axis uses. */
export const FACT_KINDS_BY_AXIS: Readonly<
  Record<BehavioralAxis, readonly BehavioralFacts['kind'][]>
> = {
  R: ['symbol-rewrite', 'counterfactual-operator'],
  C: ['information-gap'],
  A: ['framed-choice'],
  I: ['constrained-selection'],
};

/** One registered behavioral item as a prompt needs it: machine-readable facts and options. */
export const BehavioralItemSchema = z
  .strictObject({
    id: z.string().min(1),
    axis: BehavioralAxisSchema,
    /** Which fresh-context half (request) the item belongs to. */
    half: z.union([z.literal(1), z.literal(2)]),
    /** Position within its half, from 0. */
    position: z.int().min(0),
    /** Matched A items share a pair ID; null for other axes. */
    pairId: z.string().nullable(),
    frame: FrameSchema.nullable(),
    /** `exact`: a free answer compared exactly; `choice`: one of `options`. */
    answerFormat: z.enum(['exact', 'choice']),
    /** For `choice` items the option IDs in display order; null for `exact` items. */
    options: z.array(z.string().min(1)).nullable(),
    /** Task data a prompt renders and a scripted system can solve; no wording. */
    facts: BehavioralFactsSchema,
  })
  .superRefine((item, context) => {
    if (!FACT_KINDS_BY_AXIS[item.axis].includes(item.facts.kind)) {
      context.addIssue({
        code: 'custom',
        path: ['facts', 'kind'],
        message: `axis ${item.axis} expects facts of kind ${FACT_KINDS_BY_AXIS[item.axis].join(' or ')}, found ${item.facts.kind}`,
      });
    }
    const isFramed = item.axis === 'A';
    if (isFramed !== (item.pairId !== null) || isFramed !== (item.frame !== null)) {
      context.addIssue({
        code: 'custom',
        path: ['pairId'],
        message: 'A items need a pairId and a frame; other axes have both null',
      });
    }
    if (item.facts.kind === 'framed-choice' && item.facts.frame !== item.frame) {
      context.addIssue({
        code: 'custom',
        path: ['facts', 'frame'],
        message: `facts.frame (${item.facts.frame}) must equal the item's frame (${String(item.frame)})`,
      });
    }
    if ((item.answerFormat === 'choice') !== (item.options !== null)) {
      context.addIssue({
        code: 'custom',
        path: ['options'],
        message: 'choice items list their options; exact items have options null',
      });
    }
  });
/** One registered behavioral item. */
export type BehavioralItem = z.infer<typeof BehavioralItemSchema>;

/** The hidden answer of one item. */
export const BehavioralKeySchema = z.strictObject({
  itemId: z.string().min(1),
  axis: BehavioralAxisSchema,
  half: z.union([z.literal(1), z.literal(2)]),
  pairId: z.string().nullable(),
  frame: FrameSchema.nullable(),
  /** The exact expected answer (for `choice`, one of the options). */
  expected: z.string().min(1),
  /** For I items: every constraint the answer must satisfy (all are required). */
  constraints: z.array(z.string().min(1)),
});
/** The hidden answer of one item. */
export type BehavioralKey = z.infer<typeof BehavioralKeySchema>;

/** The 24 registered items of one world and their keys. */
export const BehavioralItemSetSchema = z.strictObject({
  kind: z.literal('behavioral-items'),
  generator: GeneratorInfoSchema,
  seed: SeedSchema,
  items: z.array(BehavioralItemSchema),
  key: z.array(BehavioralKeySchema),
});
/** The 24 registered items of one world and their keys. */
export type BehavioralItemSet = z.infer<typeof BehavioralItemSetSchema>;
