import type { ClassifiedTaskAnswer, Decision, ParsedTaskReply } from '@chi/spec';
import { InvalidArgumentError } from '@chi/spec';
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

/** The one answer besides an option label that a history decision may be. */
export const UNKNOWN_DECISION_ANSWER = 'unknown';

/**
 * Reads a history decision from a classified task answer. Only what the prompt showed is valid:
 * the history probe asks for "one of the two options, exactly as written, or unknown", and shows
 * each choice's options by their random labels only. So, after removing surrounding whitespace
 * (`String.prototype.trim`) and nothing else, an answer equal to `labels.A` is A, one equal to
 * `labels.B` is B and `unknown` is unknown. A JSON-null abstention (the task format's one explicit
 * abstention, for harnesses that ask for it) is also an explicit unknown. Everything else is
 * `invalid`: another case (`Unknown`, a lowercased label), the internal names or letters (`A`,
 * `b`), positions (`1`, `first`), and every missing, duplicate or invalid answer. See
 * docs/protocol.md#scoring, "History".
 *
 * @throws InvalidArgumentError when a label is empty, has surrounding whitespace, equals
 * `unknown`, or both labels are the same.
 *
 * @example
 * ```ts
 * const labels = { A: 'K7QX', B: 'M2PD' };
 * decisionOf({ id: 'env-1', status: 'answered', answer: ' M2PD\n', detail: null }, labels); // 'B'
 * decisionOf({ id: 'env-1', status: 'answered', answer: 'B', detail: null }, labels); // 'invalid'
 * ```
 */
export function decisionOf(answer: ClassifiedTaskAnswer, labels: OptionLabels): Decision {
  checkLabels(labels);
  if (answer.status === 'abstained') return 'unknown';
  if (answer.status !== 'answered' || answer.answer === null) return 'invalid';
  const said = answer.answer.trim();
  if (said === labels.A) return 'A';
  if (said === labels.B) return 'B';
  if (said === UNKNOWN_DECISION_ANSWER) return 'unknown';
  return 'invalid';
}

function checkLabels(labels: OptionLabels): void {
  if (labels === null || typeof labels !== 'object') {
    throw new InvalidArgumentError('labels', 'expected the option labels { A, B } as shown');
  }
  for (const name of ['A', 'B'] as const) {
    const label: unknown = labels[name];
    if (typeof label !== 'string' || label.length === 0 || label.trim() !== label) {
      throw new InvalidArgumentError(
        `labels.${name}`,
        `expected a non-empty label without surrounding whitespace, found ${JSON.stringify(label)}`,
      );
    }
    if (label === UNKNOWN_DECISION_ANSWER) {
      throw new InvalidArgumentError(
        `labels.${name}`,
        `label ${JSON.stringify(label)} collides with the answer ${UNKNOWN_DECISION_ANSWER}`,
      );
    }
  }
  if (labels.A === labels.B) {
    throw new InvalidArgumentError(
      'labels',
      `labels A and B are the same (${JSON.stringify(labels.A)})`,
    );
  }
}
