import { z } from 'zod';
import { BehavioralAxisSchema } from './behavior';
import { CountSchema } from './primitives';
import { RatioSchema } from './scores';

/** Accuracy of one behavioral axis with how every item's answer came back. */
export const AxisTaskScoreSchema = z.strictObject({
  axis: BehavioralAxisSchema,
  /** Correct items over all registered items of the axis. */
  accuracy: RatioSchema,
  answered: CountSchema,
  abstained: CountSchema,
  invalid: CountSchema,
  missing: CountSchema,
  duplicate: CountSchema,
  /** Choice items whose answer named none of the item's options. */
  notAnOption: CountSchema,
});
/** Accuracy of one behavioral axis. */
export type AxisTaskScore = z.infer<typeof AxisTaskScoreSchema>;

/** One matched pair of A items: the option chosen under each frame (by option position). */
export const FramePairSchema = z.strictObject({
  pairId: z.string().min(1),
  positiveItemId: z.string().min(1),
  negativeItemId: z.string().min(1),
  /** Index of the chosen option under the positive frame; null if no valid choice. */
  positiveChoice: z.int().min(0).nullable(),
  negativeChoice: z.int().min(0).nullable(),
  /** Whether the two frames got different valid choices; null unless both choices are valid. */
  changed: z.boolean().nullable(),
});
/** One matched pair of A items. */
export type FramePair = z.infer<typeof FramePairSchema>;

/**
 * Paired frame-induced choice change: pairs whose two frames got different valid choices over
 * pairs with both choices valid. A rate, not a better-or-worse score.
 */
export const FrameInducedChangeSchema = z.strictObject({
  rate: RatioSchema,
  pairs: z.array(FramePairSchema),
  interpretation: z.literal(
    'rate of frame-induced choice changes; neither higher nor lower is better',
  ),
});
/** Paired frame-induced choice change rate. */
export type FrameInducedChange = z.infer<typeof FrameInducedChangeSchema>;

/** The behavioral task indicators of one world. */
export const BehaviorScoreSchema = z.strictObject({
  axes: z.strictObject({
    R: AxisTaskScoreSchema,
    C: AxisTaskScoreSchema,
    A: AxisTaskScoreSchema,
    I: AxisTaskScoreSchema,
  }),
  frameInducedChange: FrameInducedChangeSchema,
});
/** The behavioral task indicators of one world. */
export type BehaviorScore = z.infer<typeof BehaviorScoreSchema>;
