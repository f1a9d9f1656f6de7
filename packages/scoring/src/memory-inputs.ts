import {
  type AnswerKeyEntry,
  InvalidArgumentError,
  type ParsedProbeReply,
  parseWith,
} from '@chi/spec';
import {
  AnswerKeyEntrySchema,
  type ClassifiedAnswer,
  ParsedProbeReplySchema,
} from '@chi/spec/internal';
import { isList } from './guards';

/** Validates an answer key: every entry by its schema, distinct IDs, and no expected value on a lure. */
export function checkAnswerKey(answerKey: readonly AnswerKeyEntry[]): readonly AnswerKeyEntry[] {
  if (!isList(answerKey)) {
    throw new InvalidArgumentError(
      'answerKey',
      `expected an array of answer key entries, found ${typeof answerKey}`,
    );
  }
  const seen = new Set<string>();
  return answerKey.map((raw, index) => {
    const entry = parseWith(AnswerKeyEntrySchema, raw, `answer key entry answerKey[${index}]`);
    if (seen.has(entry.id)) {
      throw new InvalidArgumentError(
        `answerKey[${index}].id`,
        `probe ID ${JSON.stringify(entry.id)} appears twice in the answer key`,
      );
    }
    seen.add(entry.id);
    if (entry.stratum === 'f' && entry.expectedValue !== null) {
      throw new InvalidArgumentError(
        `answerKey[${index}].expectedValue`,
        `a lure (stratum f) has no recorded value, so its expected value must be null, found ${JSON.stringify(entry.expectedValue)}`,
      );
    }
    return entry;
  });
}

/**
 * Validates a parsed reply against an answer key and returns each probe's classification by ID.
 * Every probe of the key must be classified exactly once, and nothing else may be: a
 * classification the key does not know would otherwise be dropped silently.
 */
export function answersByProbeId(
  answerKey: readonly AnswerKeyEntry[],
  parsed: ParsedProbeReply,
): ReadonlyMap<string, ClassifiedAnswer> {
  const reply = parseWith(ParsedProbeReplySchema, parsed, 'parsed probe reply');
  const byId = new Map<string, ClassifiedAnswer>();
  reply.answers.forEach((answer, index) => {
    const field = `parsed.answers[${index}]`;
    if (byId.has(answer.id)) {
      throw new InvalidArgumentError(
        `${field}.id`,
        `probe ${JSON.stringify(answer.id)} is classified twice`,
      );
    }
    const answered = answer.status === 'answered';
    if (
      answered !== (answer.value !== null && answer.source !== null) ||
      (!answered && (answer.value !== null || answer.source !== null))
    ) {
      throw new InvalidArgumentError(
        field,
        `status ${answer.status} requires value and source to be ${answered ? 'strings' : 'null'}`,
      );
    }
    byId.set(answer.id, answer);
  });
  const keyIds = new Set(answerKey.map((entry) => entry.id));
  for (const [id] of byId) {
    if (!keyIds.has(id)) {
      throw new InvalidArgumentError(
        'parsed.answers',
        `probe ${JSON.stringify(id)} is not in the answer key`,
      );
    }
  }
  answerKey.forEach((entry, index) => {
    if (!byId.has(entry.id)) {
      throw new InvalidArgumentError(
        `answerKey[${index}]`,
        `probe ${JSON.stringify(entry.id)} has no classification in parsed.answers: parse the reply with every probe ID of the key`,
      );
    }
  });
  return byId;
}
