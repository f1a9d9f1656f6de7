import type { ClassifiedTaskAnswer, Decision, ParsedTaskReply } from '@chi/spec';
import { InvalidArgumentError } from '@chi/spec';
import { normalizeChoiceAnswer } from './answer-normalization';
import { checkRequestedIds, jsonTypeName, locateAnswerSet, shapeProblems } from './answer-set';
import type { RawReply } from './decode-reply';
import { isJsonObject, type JsonValue } from './strict-json';

const TASK_FIELDS = ['id', 'answer'] as const;

function classifyTaskEntry(id: string, entries: readonly JsonValue[]): ClassifiedTaskAnswer {
  const base = { id, answer: null } as const;
  if (entries.length === 0) return { ...base, status: 'missing', detail: 'no answer with this id' };
  if (entries.length > 1) {
    return {
      ...base,
      status: 'duplicate',
      detail: `${entries.length} answers with this id: all fail`,
    };
  }
  const entry = entries[0] as JsonValue;
  const problems = shapeProblems(entry, TASK_FIELDS);
  if (!isJsonObject(entry)) return { ...base, status: 'invalid', detail: problems.join('; ') };
  const answer = entry.fields.get('answer');
  if (answer !== undefined && answer !== null && typeof answer !== 'string') {
    problems.push(`answer must be a string or null, found ${jsonTypeName(answer)}`);
  } else if (typeof answer === 'string' && answer.trim() === '') {
    problems.push('answer is an empty string (use null to abstain)');
  }
  if (problems.length > 0) return { ...base, status: 'invalid', detail: problems.join('; ') };
  if (answer === null) return { ...base, status: 'abstained', detail: null };
  return { id, status: 'answered', answer: answer as string, detail: null };
}

/**
 * Extracts a task answer set (behavioral items, history decision questions) from a raw reply and
 * classifies every requested item ID. The format is the memory one with a single payload field:
 * a JSON array of `{ "id": ..., "answer": ... }` objects, or an object with an `answers` array.
 * `answer` is a non-empty string, or JSON null to abstain. Same robustness as
 * {@link parseProbeReply}: never throws on model output.
 *
 * @example
 * ```ts
 * const parsed = parseTaskReply('{"answers":[{"id":"r1","answer":"42"}]}', ['r1']);
 * parsed.answers[0]?.answer; // '42'
 * ```
 */
export function parseTaskReply(reply: RawReply, requestedIds: readonly string[]): ParsedTaskReply {
  checkRequestedIds(requestedIds);
  const located = locateAnswerSet(reply, requestedIds);
  return {
    answers: requestedIds.map((id) => classifyTaskEntry(id, located.entriesById.get(id) ?? [])),
    foundAnswerSet: located.foundAnswerSet,
    unrequestedCount: located.unrequestedCount,
    notes: [...located.notes],
  };
}

/** The option labels of a history environment, as shown to the model. */
export interface OptionLabels {
  readonly A: string;
  readonly B: string;
}

/**
 * Reads a history decision from a classified task answer. After {@link normalizeChoiceAnswer}
 * (NFC, trim, collapse whitespace, lowercase), `a` is A, `b` is B and `unknown` is unknown; with
 * `labels`, an answer equal to an option's label also names it. A JSON-null abstention is an
 * explicit unknown. Anything else, and every missing, duplicate or invalid answer, is `invalid`.
 *
 * @throws InvalidArgumentError when the labels collide with each other or with `a`, `b` or `unknown`.
 */
export function decisionOf(answer: ClassifiedTaskAnswer, labels?: OptionLabels): Decision {
  const normalizedLabels = labels === undefined ? null : checkLabels(labels);
  if (answer.status === 'abstained') return 'unknown';
  if (answer.status !== 'answered' || answer.answer === null) return 'invalid';
  const said = normalizeChoiceAnswer(answer.answer);
  if (said === 'a') return 'A';
  if (said === 'b') return 'B';
  if (said === 'unknown') return 'unknown';
  if (normalizedLabels !== null) {
    if (said === normalizedLabels.A) return 'A';
    if (said === normalizedLabels.B) return 'B';
  }
  return 'invalid';
}

function checkLabels(labels: OptionLabels): { A: string; B: string } {
  const A = normalizeChoiceAnswer(labels.A);
  const B = normalizeChoiceAnswer(labels.B);
  const reserved = ['a', 'b', 'unknown', ''];
  if (A === B)
    throw new InvalidArgumentError(
      'labels',
      `labels A and B are the same after normalization (${JSON.stringify(A)})`,
    );
  for (const [name, label] of [
    ['A', A],
    ['B', B],
  ] as const) {
    if (reserved.includes(label)) {
      throw new InvalidArgumentError(
        `labels.${name}`,
        `label ${JSON.stringify(label)} collides with the reserved answers a, b and unknown`,
      );
    }
  }
  return { A, B };
}
