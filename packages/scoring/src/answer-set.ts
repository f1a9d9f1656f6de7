import { InvalidArgumentError } from '@chi/spec';
import { decodeReply } from './decode-reply';
import {
  isJsonArray,
  isJsonObject,
  type JsonArray,
  type JsonValue,
  readJsonValue,
} from './strict-json';

/**
 * Locating the answers in a raw reply, shared by memory probe replies and task replies.
 *
 * Rule (docs/protocol.md#scoring, "Where the JSON may sit"): every `[` or `{` of the reply that
 * is not inside an already read JSON string is a possible start of a JSON value, read strictly
 * (RFC 8259). Every array that is empty or holds at least one object, and every object with an
 * `answers` array, that reads completely is an answer set, wherever it sits: at top level, nested
 * in other JSON, or inside a larger value that turns out truncated. A `{"answers": [...]}` wrapper
 * and the array it holds are one answer set. **Every entry of every answer set counts**: an ID
 * named by two entries, in one set or in two (a draft and a correction, the same answer fenced
 * twice), is a duplicate and fails; two answer sets are never reconciled by guessing which one
 * the model meant. Prose or a code fence around a single answer set is fine. After a failed read
 * the search resumes at the failure point, or earlier at the first bracket the failed read took
 * for string content; brackets the failed read took as structure are never re-read (their
 * complete values were already seen, and the rest would fail at the same point), and a value
 * seen again from the same start is counted once. Total reading work is capped (see
 * {@link scanBudgetChars}).
 */

/** Work charged per read attempt on top of the characters it consumed. */
export const SCAN_ATTEMPT_COST_CHARS = 16;

/**
 * Reading work allowed per reply, in characters: `16 x length + 4 Mi`. Each read attempt costs
 * the characters it consumed plus {@link SCAN_ATTEMPT_COST_CHARS}. Ordinary replies never come
 * near it (a valid answer set is read once); the floor lets short replies with many broken
 * fragments be searched exhaustively; a reply that exhausts it gets a note, and answer sets
 * beyond the point reached are not seen.
 */
export function scanBudgetChars(textLength: number): number {
  return 16 * textLength + 4 * 1024 * 1024;
}

/** What was found for one requested ID: every entry that named it (0, 1 or more). */
export interface LocatedAnswerSet {
  readonly foundAnswerSet: boolean;
  /** Entries attributed to each requested ID, in reply order. Every requested ID is a key. */
  readonly entriesById: ReadonlyMap<string, readonly JsonValue[]>;
  readonly unrequestedCount: number;
  readonly notes: readonly string[];
}

/** Throws unless `requestedIds` is an array of distinct non-empty strings. */
export function checkRequestedIds(
  requestedIds: unknown,
  field = 'requestedIds',
): asserts requestedIds is readonly string[] {
  if (!Array.isArray(requestedIds)) {
    throw new InvalidArgumentError(
      field,
      `expected an array of IDs, found ${describe(requestedIds)}`,
    );
  }
  const seen = new Set<string>();
  requestedIds.forEach((id: unknown, index) => {
    if (typeof id !== 'string' || id.length === 0) {
      throw new InvalidArgumentError(
        `${field}[${index}]`,
        `expected a non-empty string ID, found ${describe(id)}`,
      );
    }
    if (seen.has(id)) {
      throw new InvalidArgumentError(
        `${field}[${index}]`,
        `ID ${JSON.stringify(id)} is requested twice`,
      );
    }
    seen.add(id);
  });
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `the string ${JSON.stringify(value.slice(0, 40))}`;
  return typeof value;
}

/** Shows a model-controlled string safely in a note: quoted, escaped and cut at 40 characters. */
export function quoteUntrusted(text: string): string {
  return JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}...` : text);
}

/** The answers array of a value that is an answer set (the array itself, or a wrapper's), or null. */
function answerSetOf(value: JsonValue): { array: JsonArray; ignoredFields: string[] } | null {
  // A bare array counts only if it could hold answers: empty ("no answers"), or with at least one
  // object. `[1]` or `["p-7f3a"]` in prose is not an answer set.
  if (isJsonArray(value)) {
    const possible = value.items.length === 0 || value.items.some((item) => isJsonObject(item));
    return possible ? { array: value, ignoredFields: [] } : null;
  }
  if (isJsonObject(value)) {
    const answers = value.fields.get('answers');
    if (answers !== undefined && isJsonArray(answers)) {
      const ignoredFields = [...value.fields.keys()].filter((key) => key !== 'answers');
      return { array: answers, ignoredFields };
    }
  }
  return null;
}

/** The requested ID an entry names, if any, or its foreign ID, or nothing usable. */
type Attribution =
  | { kind: 'requested'; id: string }
  | { kind: 'unrequested' }
  | { kind: 'unattributable' };

function attribute(entry: JsonValue, requested: ReadonlySet<string>): Attribution {
  if (!isJsonObject(entry)) return { kind: 'unattributable' };
  const id = entry.fields.get('id');
  // A numeric ID that spells a requested ID is clearly meant for it: attributed, and later
  // classified invalid for its type, rather than silently counted as missing.
  if (typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id))) {
    const text = String(id);
    return requested.has(text) ? { kind: 'requested', id: text } : { kind: 'unrequested' };
  }
  return { kind: 'unattributable' };
}

/**
 * Finds every answer set in a raw reply and groups all their entries by requested ID (an ID with
 * two or more entries is a duplicate for the caller to fail). Never throws on the reply;
 * `requestedIds` must already be checked.
 */
export function locateAnswerSet(reply: unknown, requestedIds: readonly string[]): LocatedAnswerSet {
  const decoded = decodeReply(reply);
  const text = decoded.text;
  const notes = [...decoded.notes];
  const requested = new Set(requestedIds);

  const budget = scanBudgetChars(text.length);
  let spent = 0;
  let jsonValues = 0;
  const answerSets: JsonArray[] = [];
  const ignoredFields = new Set<string>();
  // A value read again from the same start (a re-read after a failed read) is the same value.
  const seenStarts = new Set<number>();
  // Arrays already counted as answer sets, so a wrapper does not count the array it holds again.
  const countedArrays = new Set<JsonArray>();

  const consider = (start: number, _end: number, value: JsonValue): void => {
    if (seenStarts.has(start)) return;
    seenStarts.add(start);
    jsonValues++;
    const set = answerSetOf(value);
    if (set === null) return;
    for (const field of set.ignoredFields) ignoredFields.add(field);
    if (countedArrays.has(set.array)) return;
    countedArrays.add(set.array);
    answerSets.push(set.array);
  };

  let pos = 0;
  while (pos < text.length) {
    let start = pos;
    while (start < text.length) {
      const c = text.charCodeAt(start);
      if (c === 0x5b || c === 0x7b) break;
      start++;
    }
    if (start >= text.length) break;
    if (spent > budget) {
      notes.push(`search stopped: the reading budget of ${budget} characters was used up`);
      break;
    }
    const read = readJsonValue(text, start, consider);
    if (read.ok) {
      spent += read.end - start + SCAN_ATTEMPT_COST_CHARS;
      pos = read.end;
    } else {
      spent += read.failedAt - start + SCAN_ATTEMPT_COST_CHARS;
      const inString = read.firstBracketInString;
      pos = inString !== -1 && inString < read.failedAt ? inString : read.failedAt;
    }
  }

  const entriesById = new Map<string, JsonValue[]>(requestedIds.map((id) => [id, []]));
  if (answerSets.length === 0) {
    notes.push(
      jsonValues === 0
        ? 'no JSON answer set found: expected a JSON array of answers, or an object with an "answers" array'
        : `found ${jsonValues} JSON value(s) but no answer set: expected a JSON array of answers, or an object with an "answers" array`,
    );
    return { foundAnswerSet: false, entriesById, unrequestedCount: 0, notes };
  }

  if (ignoredFields.size > 0) {
    const fields = [...ignoredFields];
    const shown = fields.slice(0, 5).map(quoteUntrusted).join(', ');
    const more = fields.length > 5 ? ` and ${fields.length - 5} more` : '';
    notes.push(`ignored top-level field(s) beside "answers": ${shown}${more}`);
  }

  let unrequestedCount = 0;
  let unattributable = 0;
  for (const set of answerSets) {
    for (const entry of set.items) {
      const who = attribute(entry, requested);
      if (who.kind === 'requested') entriesById.get(who.id)?.push(entry);
      else if (who.kind === 'unrequested') unrequestedCount++;
      else unattributable++;
    }
  }
  if (answerSets.length > 1) {
    const repeated = [...entriesById.values()].filter((entries) => entries.length > 1).length;
    notes.push(
      `found ${answerSets.length} answer sets; all their answers count, and ${repeated} requested ID(s) answered more than once fail as duplicates`,
    );
  }
  if (unrequestedCount > 0) {
    notes.push(`ignored ${unrequestedCount} answer(s) for IDs that were not requested`);
  }
  if (unattributable > 0) {
    notes.push(
      `ignored ${unattributable} entr${unattributable === 1 ? 'y' : 'ies'} with no usable "id" (not an object, or id not a string)`,
    );
  }
  return { foundAnswerSet: true, entriesById, unrequestedCount, notes };
}

/** Describes a JSON value's type for a detail message. */
export function jsonTypeName(value: JsonValue | undefined): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (typeof value === 'object') return value.kind;
  return typeof value;
}

/**
 * Checks the exact field set of an attributed answer object. Returns the problems found (empty
 * when the object has exactly `fieldNames`, each once, and a string `id`).
 */
export function shapeProblems(entry: JsonValue, fieldNames: readonly string[]): string[] {
  if (!isJsonObject(entry)) return [`expected an object, found ${jsonTypeName(entry)}`];
  const problems: string[] = [];
  if (entry.repeatedKeys.length > 0) {
    problems.push(
      `field(s) given more than once: ${entry.repeatedKeys.slice(0, 5).map(quoteUntrusted).join(', ')}`,
    );
  }
  const id = entry.fields.get('id');
  if (typeof id !== 'string') problems.push(`id must be a string, found ${jsonTypeName(id)}`);
  const extra = [...entry.fields.keys()].filter((key) => !fieldNames.includes(key));
  if (extra.length > 0) {
    const more = extra.length > 5 ? ` and ${extra.length - 5} more` : '';
    problems.push(
      `unexpected field(s): ${extra.slice(0, 5).map(quoteUntrusted).join(', ')}${more}`,
    );
  }
  const absent = fieldNames.filter((key) => !entry.fields.has(key));
  if (absent.length > 0)
    problems.push(`missing field(s): ${absent.map((key) => JSON.stringify(key)).join(', ')}`);
  return problems;
}
