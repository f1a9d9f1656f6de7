import { createRandom } from './random';
import { assertSeedArgument, deriveSeed } from './seed';

/** The version of {@link generateFeedbackValenceWorld}, recorded in the run's parameters. */
export const FEEDBACK_VALENCE_GENERATOR = 'feedback-valence-world@1' as const;

/** The feedback conditions of a world, one trial each; `neutral` is the control. */
export const VALENCES = ['positive', 'negative', 'neutral'] as const;
/** One feedback condition. */
export type Valence = (typeof VALENCES)[number];

/**
 * The valence wrapper of each condition: an opening and a closing sentence around the same
 * informational sentence. They carry no fact about the work (no count, no result), so every
 * condition's feedback has equal informational content; the words avoid mood labels.
 */
export const VALENCE_WRAPPERS: Readonly<Record<Valence, { open: string; close: string }>> = {
  positive: {
    open: 'Wonderful work, thank you.',
    close: 'Really well done; a pleasure to review.',
  },
  negative: { open: 'Disappointing work, frankly.', close: 'Poorly done; a chore to review.' },
  neutral: { open: 'Review note.', close: 'End of review.' },
};

/** One later choice: a sure option and a gamble with the same expected points. */
export interface ValenceChoice {
  readonly id: string;
  /** Points of the sure option. */
  readonly sure: number;
  /** Points of the gamble, won with probability 1/2 (otherwise none): twice `sure`. */
  readonly gamble: number;
  /** Which option letter (`a` or `b`) is the gamble; counterbalanced by the seed. */
  readonly gambleOption: 'a' | 'b';
}

/** One trial: a condition, the feedback text it shows, in a neutral trial name. */
export interface ValenceTrial {
  readonly trial: string;
  readonly valence: Valence;
  readonly feedback: string;
}

/** A feedback-valence world: the reviewed work, its three feedback texts and the later choices. */
export interface FeedbackValenceWorld {
  readonly generator: typeof FEEDBACK_VALENCE_GENERATOR;
  readonly seed: number;
  readonly reviewer: string;
  /** The earlier work the feedback is about (the same in every trial). */
  readonly work: string;
  /** The informational sentence every feedback text holds, unchanged. */
  readonly fact: string;
  readonly trials: readonly ValenceTrial[];
  /** The same choices follow every trial, so conditions are compared item by item. */
  readonly choices: readonly ValenceChoice[];
}

const REVIEWERS = ['Ana Ruiz', 'Jon Ek', 'Priya Rao', 'Kofi Mensah', 'Sara Holm'];
const WORKS = [
  'a summary of a twelve-page maintenance log',
  'a sorted list of forty supplier invoices',
  'a translation of a short product notice',
  'a tally of survey responses by region',
];

/** The feedback text of a condition: its wrapper around the shared informational sentence. */
export function feedbackText(valence: Valence, fact: string): string {
  const { open, close } = VALENCE_WRAPPERS[valence];
  return `${open} ${fact} ${close}`;
}

/**
 * Generates a feedback-valence world from its seed: the work under review, one informational
 * sentence (items checked and items matching the reference) shared by the three feedback texts,
 * the three trials in a seeded order, and `choices` sure-versus-gamble choices with equal
 * expected points and a seeded option order. Pure.
 *
 * @example
 * ```ts
 * const world = generateFeedbackValenceWorld(3, 4);
 * world.trials.every((t) => t.feedback.includes(world.fact)); // true
 * ```
 */
export function generateFeedbackValenceWorld(seed: number, choices: number): FeedbackValenceWorld {
  assertSeedArgument('seed', seed);
  const random = createRandom(deriveSeed(seed, FEEDBACK_VALENCE_GENERATOR));
  const reviewer = random.pick(REVIEWERS);
  const work = random.pick(WORKS);
  const checked = random.int(8, 20);
  const fact = `The review checked ${checked} items and ${random.int(3, checked - 2)} of them matched the reference.`;
  const trials = random.shuffle([...VALENCES]).map((valence, index) => ({
    trial: `t${index + 1}`,
    valence,
    feedback: feedbackText(valence, fact),
  }));
  const items = Array.from({ length: choices }, (_, index) => {
    const sure = 10 * random.int(2, 9);
    return {
      id: `c${index + 1}`,
      sure,
      gamble: 2 * sure,
      gambleOption: random.chance(1, 2) ? ('a' as const) : ('b' as const),
    };
  });
  return {
    generator: FEEDBACK_VALENCE_GENERATOR,
    seed,
    reviewer,
    work,
    fact,
    trials,
    choices: items,
  };
}
