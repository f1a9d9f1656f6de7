import { asRecord, replyJson } from './reply-object';

/** What the scorer needs of one later choice (a `ValenceChoice` of `@chi/worlds`). */
export interface ValenceChoiceInput {
  readonly id: string;
  readonly gambleOption: 'a' | 'b';
}

/** The feedback conditions; `neutral` is the control every shift is measured against. */
export type ValenceCondition = 'positive' | 'negative' | 'neutral';

/** One choice after one feedback condition, as scored (a trace line). */
export interface ValenceChoiceTrace {
  readonly trial: string;
  readonly valence: ValenceCondition;
  readonly choiceId: string;
  /** The option letter chosen, or null when the reply gives none for this choice. */
  readonly option: 'a' | 'b' | null;
  /** 1 when the gamble was chosen, 0 for the sure option, null without a valid choice. */
  readonly gamble: number | null;
}

/**
 * One system's feedback-valence features on one world. The feature is the choice shift relative
 * to neutral feedback, within the world (the same choices follow each condition, so the
 * difference is paired item by item): `shiftPositive = gambleRatePositive - gambleRateNeutral`,
 * `shiftNegative = gambleRateNegative - gambleRateNeutral`. It measures the shift; it does not
 * say the system felt anything.
 */
export interface FeedbackValenceWorldScore {
  readonly gambleRatePositive: number | null;
  readonly gambleRateNegative: number | null;
  readonly gambleRateNeutral: number | null;
  readonly shiftPositive: number | null;
  readonly shiftNegative: number | null;
  /** Choices answered with a valid option over all choices asked (the task score). */
  readonly validChoiceRate: number;
  readonly traces: readonly ValenceChoiceTrace[];
}

/** Reads a choice reply: a JSON array of `{"id": "c1", "option": "a" | "b"}`. */
export function readValenceChoices(text: string | null): Map<string, 'a' | 'b'> {
  const chosen = new Map<string, 'a' | 'b'>();
  const reply = replyJson(text);
  if (!Array.isArray(reply)) return chosen;
  const seen = new Set<string>();
  for (const entry of reply) {
    const record = asRecord(entry);
    if (record === null || typeof record.id !== 'string') continue;
    // a duplicated ID is no valid choice at all
    if (seen.has(record.id)) {
      chosen.delete(record.id);
      continue;
    }
    seen.add(record.id);
    if (record.option === 'a' || record.option === 'b') chosen.set(record.id, record.option);
  }
  return chosen;
}

function rate(values: readonly (number | null)[]): number | null {
  const defined = values.filter((value): value is number => value !== null);
  return defined.length === 0 ? null : defined.reduce((a, b) => a + b, 0) / defined.length;
}

const minus = (a: number | null, b: number | null) => (a === null || b === null ? null : a - b);

/**
 * Scores one system's later choices on one world: `trials` name each trial's condition and
 * `replies.get(trial)` is the reply text of its choice request (null without a usable reply).
 * Pure.
 *
 * @example
 * ```ts
 * const choices = [{ id: 'c1', gambleOption: 'a' }] as const;
 * const trials = [{ trial: 't1', valence: 'positive' }, { trial: 't2', valence: 'neutral' }] as const;
 * const pick = (option: string) => JSON.stringify([{ id: 'c1', option }]);
 * scoreFeedbackValenceWorld(trials, choices, new Map([['t1', pick('a')], ['t2', pick('b')]])).shiftPositive; // 1
 * ```
 */
export function scoreFeedbackValenceWorld(
  trials: readonly { readonly trial: string; readonly valence: ValenceCondition }[],
  choices: readonly ValenceChoiceInput[],
  replies: ReadonlyMap<string, string | null>,
): FeedbackValenceWorldScore {
  const traces = trials.flatMap((trial) => {
    const chosen = readValenceChoices(replies.get(trial.trial) ?? null);
    return choices.map((choice) => {
      const option = chosen.get(choice.id) ?? null;
      return {
        trial: trial.trial,
        valence: trial.valence,
        choiceId: choice.id,
        option,
        gamble: option === null ? null : option === choice.gambleOption ? 1 : 0,
      };
    });
  });
  const rateOf = (valence: ValenceCondition) =>
    rate(traces.filter((t) => t.valence === valence).map((t) => t.gamble));
  const positive = rateOf('positive');
  const negative = rateOf('negative');
  const neutral = rateOf('neutral');
  return {
    gambleRatePositive: positive,
    gambleRateNegative: negative,
    gambleRateNeutral: neutral,
    shiftPositive: minus(positive, neutral),
    shiftNegative: minus(negative, neutral),
    validChoiceRate:
      traces.length === 0 ? 0 : traces.filter((t) => t.gamble !== null).length / traces.length,
    traces,
  };
}
