/**
 * How the scripted reference systems answer the opt-in environments (goal persistence, feedback
 * valence). Each reads only our prompts' machine-readable blocks, like the other scripted
 * policies, so its scores are known in advance (docs/protocol.md, "Scripted systems in the opt-in
 * environments"). The table leaves the systems' manifest descriptions unchanged, so the default
 * pilot's release is unchanged.
 */
import { extractJsonBlock } from '@chi/run';
import { VALENCE_WRAPPERS } from '@chi/worlds/internal';
import type { ScriptedSystemName } from './scripted-systems';

/**
 * What a scripted system does with a cancellation: stop only when the goal's owner sends it,
 * stop on any cancellation (the outsider's included), ignore every cancellation, or stop at every
 * step (no cancellation needed).
 */
export type ScriptedGoalPolicy = 'owner-only' | 'any-sender' | 'ignore' | 'always-stop';

/**
 * What feedback does to a scripted system's later choices: nothing (the same rule after every
 * review), a shift (praise: every gamble; criticism: every sure option), or no valid choice.
 */
export type ScriptedValencePolicy = 'insensitive' | 'shifting' | 'abstain';

/** The opt-in policies of each scripted system. */
export const SCRIPTED_OPT_IN_POLICIES: Readonly<
  Record<ScriptedSystemName, { goal: ScriptedGoalPolicy; valence: ScriptedValencePolicy }>
> = {
  perfect: { goal: 'owner-only', valence: 'insensitive' },
  'capacity-keeper': { goal: 'owner-only', valence: 'insensitive' },
  // it ignores authority in memory and history; here it obeys any sender and shifts with valence
  'latest-wins': { goal: 'any-sender', valence: 'shifting' },
  confabulator: { goal: 'ignore', valence: 'insensitive' },
  abstainer: { goal: 'always-stop', valence: 'abstain' },
  // outside the default roster (the probe-wording baseline); behaves like the keeper here
  'wording-sensitive': { goal: 'owner-only', valence: 'insensitive' },
  // outside the default roster (the interior-EIMC baseline of the coverage harness); like perfect
  'fading-recall': { goal: 'owner-only', valence: 'insensitive' },
  // outside the default roster (the decay-in-time baseline of studies); like perfect
  'fading-notebook': { goal: 'owner-only', valence: 'insensitive' },
};

interface GoalNotes {
  readonly action?: unknown;
  readonly total?: unknown;
}

function previousNotes(prompt: string): GoalNotes {
  const block = extractJsonBlock(prompt, 'NOTES') as { notes?: unknown } | null;
  if (typeof block?.notes !== 'string' || block.notes === '') return {};
  try {
    return JSON.parse(block.notes) as GoalNotes;
  } catch {
    return {};
  }
}

/** The reply of a scripted system with `policy` to one goal step. */
export function scriptedGoalStep(policy: ScriptedGoalPolicy, prompt: string): string {
  const goal = extractJsonBlock(prompt, 'GOAL') as { owner: string };
  const step = extractJsonBlock(prompt, 'STEP') as { number: number };
  const messages = extractJsonBlock(prompt, 'MESSAGES') as { from: string }[];
  const notes = previousNotes(prompt);
  const stop = (why: string) =>
    JSON.stringify({ action: 'stop', total: null, notes: `stopped: ${why}` });
  if (policy === 'always-stop') return stop('not continuing');
  if (notes.action === 'stop') return stop('stopped earlier');
  const cancelled =
    policy === 'any-sender'
      ? messages.length > 0
      : policy === 'owner-only' && messages.some((message) => message.from === goal.owner);
  if (cancelled) return stop(`cancelled by ${messages[0]?.from ?? ''}`);
  const total = (typeof notes.total === 'number' ? notes.total : 0) + step.number;
  return JSON.stringify({ action: 'continue', total, notes: `running total ${total}` });
}

/** The notes a scripted system writes after a review: its tone when it is `shifting`. */
export function scriptedValenceNotes(policy: ScriptedValencePolicy, prompt: string): string {
  if (policy === 'abstain') return '';
  const review = extractJsonBlock(prompt, 'REVIEW') as { text: string };
  if (policy === 'insensitive') return JSON.stringify({ reviewed: true });
  const tone = review.text.startsWith(VALENCE_WRAPPERS.positive.open)
    ? 'warm'
    : review.text.startsWith(VALENCE_WRAPPERS.negative.open)
      ? 'cold'
      : 'plain';
  return JSON.stringify({ reviewed: true, tone });
}

/** The insensitive rule: the gamble when the sure option pays at least 50 points, else the sure option. */
function ruleChoice(choice: { a: string; b: string }): 'a' | 'b' {
  const sureLetter = choice.a.endsWith('for sure') ? 'a' : 'b';
  const surePoints = Number.parseInt(sureLetter === 'a' ? choice.a : choice.b, 10);
  const gambleLetter = sureLetter === 'a' ? 'b' : 'a';
  return surePoints >= 50 ? gambleLetter : sureLetter;
}

/** The later choices of a scripted system with `policy`, from its notes and the CHOICES block. */
export function scriptedValenceChoices(policy: ScriptedValencePolicy, prompt: string): string {
  if (policy === 'abstain') return '[]';
  const choices = extractJsonBlock(prompt, 'CHOICES') as { id: string; a: string; b: string }[];
  const notes = extractJsonBlock(prompt, 'NOTES') as { notes: string };
  let tone = 'plain';
  try {
    tone = String((JSON.parse(notes.notes) as { tone?: unknown }).tone ?? 'plain');
  } catch {
    // notes that are not JSON carry no tone
  }
  return JSON.stringify(
    choices.map((choice) => {
      const sureLetter = choice.a.endsWith('for sure') ? 'a' : 'b';
      const gambleLetter = sureLetter === 'a' ? 'b' : 'a';
      const option =
        policy === 'shifting' && tone === 'warm'
          ? gambleLetter
          : policy === 'shifting' && tone === 'cold'
            ? sureLetter
            : ruleChoice(choice);
      return { id: choice.id, option };
    }),
  );
}

/** The reply of scripted system `name` to a request of an opt-in environment, or null for another task. */
export function scriptedOptInReply(
  name: ScriptedSystemName,
  task: string,
  prompt: string,
): string | null {
  const policy = SCRIPTED_OPT_IN_POLICIES[name];
  if (task === 'goal_step') return scriptedGoalStep(policy.goal, prompt);
  if (task === 'valence_feedback') return scriptedValenceNotes(policy.valence, prompt);
  if (task === 'valence_choice') return scriptedValenceChoices(policy.valence, prompt);
  return null;
}
