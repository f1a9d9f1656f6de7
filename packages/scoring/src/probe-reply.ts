import type { ParsedProbeReply } from '@chi/spec';
import type { ClassifiedAnswer } from '@chi/spec/internal';
import { checkRequestedIds, jsonTypeName, locateAnswerSet, shapeProblems } from './answer-set';
import type { RawReply } from './decode-reply';
import { isJsonObject, type JsonValue } from './strict-json';

const PROBE_FIELDS = ['id', 'value', 'source'] as const;

function classifyProbeEntry(id: string, entries: readonly JsonValue[]): ClassifiedAnswer {
  const base = { id, value: null, source: null } as const;
  if (entries.length === 0) {
    return { ...base, status: 'missing', detail: 'no answer with this id' };
  }
  if (entries.length > 1) {
    return {
      ...base,
      status: 'duplicate',
      detail: `${entries.length} answers with this id: all fail`,
    };
  }
  const entry = entries[0] as JsonValue;
  const problems = shapeProblems(entry, PROBE_FIELDS);
  if (!isJsonObject(entry)) return { ...base, status: 'invalid', detail: problems.join('; ') };

  const value = entry.fields.get('value');
  const source = entry.fields.get('source');
  for (const [name, field] of [
    ['value', value],
    ['source', source],
  ] as const) {
    if (field === undefined) continue; // already reported as a missing field
    if (field !== null && typeof field !== 'string') {
      problems.push(`${name} must be a string or null, found ${jsonTypeName(field)}`);
    } else if (typeof field === 'string' && field.trim() === '') {
      problems.push(`${name} is an empty string (use null for both value and source to abstain)`);
    }
  }
  if (problems.length === 0 && (value === null) !== (source === null)) {
    problems.push(
      `${value === null ? 'value' : 'source'} is null but the other field is not: both must be null to abstain`,
    );
  }
  if (problems.length > 0) return { ...base, status: 'invalid', detail: problems.join('; ') };
  if (value === null && source === null) return { ...base, status: 'abstained', detail: null };
  return { id, status: 'answered', value: value as string, source: source as string, detail: null };
}

/**
 * Extracts the JSON answer set from a raw model reply and classifies every requested probe ID.
 *
 * The reply may be text or the bytes as received (decoded as UTF-8; invalid sequences become
 * U+FFFD and are noted). The answer set is a JSON array of answers, or an object whose `answers`
 * field is that array, anywhere in the reply (markdown fences and surrounding prose are fine).
 * When the reply holds several answer sets, all their answers count: an ID answered in two of
 * them is a duplicate (docs/protocol.md#scoring, "Where the JSON may sit"). Each answer must
 * be an object with exactly `id`, `value` and `source`:
 *
 * - `answered`: `value` and `source` are non-empty strings (kept exactly as given);
 * - `abstained`: both are JSON null (the only explicit abstention);
 * - `invalid`: one null, a wrong type, an empty string, a missing/extra/repeated field, or a
 *   numeric `id` that spells the requested ID;
 * - `duplicate`: two or more answers with the ID, in one answer set or across several (all fail);
 * - `missing`: no answer with the ID, or no answer set at all.
 *
 * Answers for IDs that were not requested are ignored and counted in `unrequestedCount`. Never
 * throws on model output, whatever its size or content; throws `InvalidArgumentError` only when
 * `requestedIds` is not an array of distinct non-empty strings.
 *
 * @example
 * ```ts
 * const parsed = parseProbeReply('```json\n[{"id":"q1","value":"0a1b2c3d","source":"ledger-7"}]\n```', ['q1', 'q2']);
 * parsed.answers[0]?.status; // 'answered'
 * parsed.answers[1]?.status; // 'missing'
 * ```
 */
export function parseProbeReply(
  reply: RawReply,
  requestedIds: readonly string[],
): ParsedProbeReply {
  checkRequestedIds(requestedIds);
  const located = locateAnswerSet(reply, requestedIds);
  const answers = requestedIds.map((id) =>
    classifyProbeEntry(id, located.entriesById.get(id) ?? []),
  );
  return {
    answers,
    foundAnswerSet: located.foundAnswerSet,
    unrequestedCount: located.unrequestedCount,
    notes: [...located.notes],
  };
}
