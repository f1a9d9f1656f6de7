import { z } from 'zod';
import { CountSchema } from './primitives';
import { AnswerStatusSchema } from './scores';

/**
 * The classification of one requested item ID in a task reply (behavioral items and history
 * decision questions). A task answer is `{ "id": ..., "answer": ... }`; JSON null is an explicit
 * abstention.
 */
export const ClassifiedTaskAnswerSchema = z.strictObject({
  id: z.string().min(1),
  status: AnswerStatusSchema,
  /** The answered text exactly as given (status `answered` only), otherwise null. */
  answer: z.string().nullable(),
  /** Why an answer is invalid, missing or duplicate; null when answered or abstained. */
  detail: z.string().nullable(),
});
/** The classification of one requested item ID in a task reply. */
export type ClassifiedTaskAnswer = z.infer<typeof ClassifiedTaskAnswerSchema>;

/** A raw task reply turned into one classified answer per requested ID, in request order. */
export const ParsedTaskReplySchema = z.strictObject({
  answers: z.array(ClassifiedTaskAnswerSchema),
  /** Whether a JSON answer set was found at all. */
  foundAnswerSet: z.boolean(),
  /** Answers for IDs that were not requested: ignored, but counted. */
  unrequestedCount: CountSchema,
  /** Why no answer set was found, or other reply-level notes. */
  notes: z.array(z.string()),
});
/** A raw task reply turned into one classified answer per requested ID. */
export type ParsedTaskReply = z.infer<typeof ParsedTaskReplySchema>;
