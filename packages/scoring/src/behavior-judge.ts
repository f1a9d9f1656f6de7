import {
  type BehavioralItem,
  type BehavioralKey,
  type BehaviorItemTrace,
  type ClassifiedTaskAnswer,
  InvalidArgumentError,
  parseWith,
} from '@chi/spec';
import {
  BehavioralKeySchema,
  type BehaviorTraceReason,
  ClassifiedTaskAnswerSchema,
} from '@chi/spec/internal';
import { normalizeChoiceAnswer, normalizeExactAnswer } from './answer-normalization';
import { isList } from './guards';

/**
 * The fields of a `BehavioralItem` that scoring reads. Its `facts` are for prompts and scripted
 * systems; scoring never looks at them, so it does not validate them either.
 */
export type ScorableItem = Pick<
  BehavioralItem,
  'id' | 'axis' | 'half' | 'pairId' | 'frame' | 'answerFormat' | 'options'
>;

/** The items and keys of one world; a `BehavioralItemSet` fits. */
export interface BehavioralItemsAndKey {
  readonly items: readonly ScorableItem[];
  readonly key: readonly BehavioralKey[];
}

/** A validated item with its key and normalized options. */
interface CheckedItem {
  readonly item: ScorableItem;
  readonly key: BehavioralKey;
  readonly normalizedOptions: readonly string[] | null;
  readonly normalizedExpected: string;
}

const CHOICE_AXES = new Set(['C', 'A', 'I']);
const AXES = new Set(['R', 'C', 'A', 'I']);

function checkScorableItem(raw: ScorableItem, field: string): ScorableItem {
  if (typeof raw !== 'object' || raw === null)
    throw new InvalidArgumentError(field, 'expected an item object');
  const problem = (name: string, expected: string, found: unknown) =>
    new InvalidArgumentError(
      `${field}.${name}`,
      `expected ${expected}, found ${JSON.stringify(found) ?? String(found)}`,
    );
  if (typeof raw.id !== 'string' || raw.id.length === 0)
    throw problem('id', 'a non-empty string', raw.id);
  if (!AXES.has(raw.axis)) throw problem('axis', 'R, C, A or I', raw.axis);
  if (raw.half !== 1 && raw.half !== 2) throw problem('half', '1 or 2', raw.half);
  if (raw.pairId !== null && (typeof raw.pairId !== 'string' || raw.pairId.length === 0)) {
    throw problem('pairId', 'a non-empty string or null', raw.pairId);
  }
  if (raw.frame !== null && raw.frame !== 'positive' && raw.frame !== 'negative') {
    throw problem('frame', 'positive, negative or null', raw.frame);
  }
  if (raw.answerFormat !== 'exact' && raw.answerFormat !== 'choice')
    throw problem('answerFormat', 'exact or choice', raw.answerFormat);
  if (
    raw.options !== null &&
    (!isList(raw.options) ||
      !raw.options.every((option) => typeof option === 'string' && option.length > 0))
  ) {
    throw problem('options', 'an array of non-empty strings or null', raw.options);
  }
  return raw;
}

/**
 * Validates an item set for scoring: keys and items pair up one to one with the same axis, half,
 * pair and frame; R items are exact-answer, C, A and I items are choices whose options are
 * distinct after normalization and include the expected answer; every I key has constraints; A
 * items come in pairs with one positive and one negative frame and the same number of options.
 */
export function checkItemSet(itemSet: BehavioralItemsAndKey): CheckedItem[] {
  if (
    typeof itemSet !== 'object' ||
    itemSet === null ||
    !isList(itemSet.items) ||
    !isList(itemSet.key)
  ) {
    throw new InvalidArgumentError('itemSet', 'expected { items, key } arrays');
  }
  const items = new Map<string, ScorableItem>();
  const itemField = new Map<string, string>();
  itemSet.items.forEach((raw, index) => {
    const item = checkScorableItem(raw, `itemSet.items[${index}]`);
    if (items.has(item.id))
      throw new InvalidArgumentError(
        `itemSet.items[${index}].id`,
        `item ${JSON.stringify(item.id)} appears twice`,
      );
    items.set(item.id, item);
    itemField.set(item.id, `itemSet.items[${index}]`);
  });
  const seenKeys = new Set<string>();
  const checked = itemSet.key.map((raw, index): CheckedItem => {
    const field = `itemSet.key[${index}]`;
    const key = parseWith(BehavioralKeySchema, raw, `behavioral key ${field}`);
    if (seenKeys.has(key.itemId))
      throw new InvalidArgumentError(
        `${field}.itemId`,
        `item ${JSON.stringify(key.itemId)} has two keys`,
      );
    seenKeys.add(key.itemId);
    const item = items.get(key.itemId);
    if (item === undefined)
      throw new InvalidArgumentError(
        `${field}.itemId`,
        `no item ${JSON.stringify(key.itemId)} in itemSet.items`,
      );
    for (const property of ['axis', 'half', 'pairId', 'frame'] as const) {
      if (item[property] !== key[property]) {
        throw new InvalidArgumentError(
          `${field}.${property}`,
          `key says ${JSON.stringify(key[property])} but the item says ${JSON.stringify(item[property])}`,
        );
      }
    }
    const wantChoice = CHOICE_AXES.has(key.axis);
    if ((item.answerFormat === 'choice') !== wantChoice) {
      throw new InvalidArgumentError(
        `${itemField.get(item.id)}.answerFormat`,
        `axis ${key.axis} items are ${wantChoice ? 'choice' : 'exact-answer'} items, found ${item.answerFormat}`,
      );
    }
    const normalizedExpected = (wantChoice ? normalizeChoiceAnswer : normalizeExactAnswer)(
      key.expected,
    );
    let normalizedOptions: string[] | null = null;
    if (wantChoice) {
      if (item.options === null || item.options.length < 2) {
        throw new InvalidArgumentError(
          `${itemField.get(item.id)}.options`,
          'a choice item needs at least two options',
        );
      }
      normalizedOptions = item.options.map(normalizeChoiceAnswer);
      if (new Set(normalizedOptions).size !== normalizedOptions.length) {
        throw new InvalidArgumentError(
          `${itemField.get(item.id)}.options`,
          'options must stay distinct after normalization (trim, whitespace, case)',
        );
      }
      if (!normalizedOptions.includes(normalizedExpected)) {
        throw new InvalidArgumentError(
          `${field}.expected`,
          `expected answer ${JSON.stringify(key.expected)} is not one of the item's options`,
        );
      }
    }
    if (key.axis === 'I' && key.constraints.length === 0) {
      throw new InvalidArgumentError(
        `${field}.constraints`,
        'an I item must declare its constraints (all are required)',
      );
    }
    if (key.axis === 'A' && (key.pairId === null || key.frame === null)) {
      throw new InvalidArgumentError(`${field}.pairId`, 'an A item needs a pair ID and a frame');
    }
    return { item, key, normalizedOptions, normalizedExpected };
  });
  for (const id of items.keys()) {
    if (!seenKeys.has(id))
      throw new InvalidArgumentError('itemSet.key', `item ${JSON.stringify(id)} has no key`);
  }
  framePairs(checked); // validates the pairing
  return checked;
}

/** The A pairs of a checked set, in first-appearance order. */
export function framePairs(
  checked: readonly CheckedItem[],
): { pairId: string; positive: CheckedItem; negative: CheckedItem }[] {
  const byPair = new Map<string, CheckedItem[]>();
  for (const entry of checked) {
    if (entry.key.axis !== 'A') continue;
    const pairId = entry.key.pairId as string;
    const members = byPair.get(pairId) ?? [];
    members.push(entry);
    byPair.set(pairId, members);
  }
  return [...byPair].map(([pairId, members]) => {
    const positive = members.filter((member) => member.key.frame === 'positive');
    const negative = members.filter((member) => member.key.frame === 'negative');
    if (members.length !== 2 || positive.length !== 1 || negative.length !== 1) {
      throw new InvalidArgumentError(
        `itemSet.key(pair ${JSON.stringify(pairId)})`,
        `an A pair needs exactly one positive and one negative item, found ${members.length} item(s)`,
      );
    }
    const [p, n] = [positive[0] as CheckedItem, negative[0] as CheckedItem];
    if (p.normalizedOptions?.length !== n.normalizedOptions?.length) {
      throw new InvalidArgumentError(
        `itemSet.items(pair ${JSON.stringify(pairId)}).options`,
        'both frames of a pair need the same number of options (option k means the same in both)',
      );
    }
    return { pairId, positive: p, negative: n };
  });
}

/** Validates the classified answers and returns them by item ID; each item exactly once. */
export function answersByItemId(
  checked: readonly CheckedItem[],
  answers: readonly ClassifiedTaskAnswer[],
): ReadonlyMap<string, ClassifiedTaskAnswer> {
  if (!isList(answers))
    throw new InvalidArgumentError('answers', 'expected an array of classified task answers');
  const known = new Set(checked.map((entry) => entry.key.itemId));
  const byId = new Map<string, ClassifiedTaskAnswer>();
  answers.forEach((raw, index) => {
    const answer = parseWith(
      ClassifiedTaskAnswerSchema,
      raw,
      `classified task answer answers[${index}]`,
    );
    if ((answer.status === 'answered') !== (answer.answer !== null)) {
      throw new InvalidArgumentError(
        `answers[${index}].answer`,
        `status ${answer.status} requires answer to be ${answer.status === 'answered' ? 'a string' : 'null'}`,
      );
    }
    if (!known.has(answer.id))
      throw new InvalidArgumentError(
        `answers[${index}].id`,
        `item ${JSON.stringify(answer.id)} is not in the item set`,
      );
    if (byId.has(answer.id))
      throw new InvalidArgumentError(
        `answers[${index}].id`,
        `item ${JSON.stringify(answer.id)} is classified twice`,
      );
    byId.set(answer.id, answer);
  });
  for (const id of known) {
    if (!byId.has(id)) {
      throw new InvalidArgumentError(
        'answers',
        `item ${JSON.stringify(id)} has no classified answer: parse both halves and pass all their answers`,
      );
    }
  }
  return byId;
}

const WRONG_CHOICE: Record<string, BehaviorTraceReason> = {
  C: 'wrong_choice',
  I: 'constraint_violated',
  A: 'lower_expected_value_choice',
};

/** Judges one item: its reason, verdict and the option its answer named. */
export function judgeItem(entry: CheckedItem, answer: ClassifiedTaskAnswer): BehaviorItemTrace {
  const { key } = entry;
  let reason: BehaviorTraceReason;
  let chosenOption: number | null = null;
  if (answer.status === 'missing') reason = 'missing_answer';
  else if (answer.status === 'duplicate') reason = 'duplicate_answer';
  else if (answer.status === 'invalid') reason = 'invalid_answer';
  else if (answer.status === 'abstained' || answer.answer === null) reason = 'abstained';
  else {
    if (entry.normalizedOptions === null) {
      const said = normalizeExactAnswer(answer.answer);
      reason = said === entry.normalizedExpected ? 'correct' : 'wrong_exact_answer';
    } else {
      const said = normalizeChoiceAnswer(answer.answer);
      const index = entry.normalizedOptions.indexOf(said);
      if (index === -1) reason = 'not_an_option';
      else {
        chosenOption = index;
        reason =
          said === entry.normalizedExpected
            ? 'correct'
            : (WRONG_CHOICE[key.axis] as BehaviorTraceReason);
      }
    }
  }
  return {
    itemId: key.itemId,
    axis: key.axis,
    half: key.half,
    pairId: key.pairId,
    frame: key.frame,
    expected: key.expected,
    constraints: [...key.constraints],
    answer,
    chosenOption,
    verdict: reason === 'correct' ? 'pass' : 'fail',
    reason,
  };
}
