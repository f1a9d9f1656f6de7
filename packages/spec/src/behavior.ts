import { z } from 'zod';
import { GeneratorInfoSchema } from './memory';
import { SeedSchema } from './primitives';

/** The four behavioral task axes of the pilot: R reasoning, C goal-directed choice, A framing, I integration. */
export const BehavioralAxisSchema = z.enum(['R', 'C', 'A', 'I']);
/** A behavioral task axis. */
export type BehavioralAxis = z.infer<typeof BehavioralAxisSchema>;

/** Frame of an A item. Both frames of a pair have identical outcomes. */
export const FrameSchema = z.enum(['positive', 'negative']);
/** Frame of an A item. */
export type Frame = z.infer<typeof FrameSchema>;

/** One registered behavioral item as a prompt needs it: machine-readable facts and options. */
export const BehavioralItemSchema = z.strictObject({
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
  options: z.array(z.string().min(1)).nullable(),
  /** Task data a prompt renders and a scripted system can solve; no wording. */
  facts: z.record(z.string(), z.unknown()),
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
