/**
 * How the scripted reference systems answer feedback valence. The policy reads only the prompt's
 * machine-readable blocks, like every scripted policy, so its scores are known in advance
 * (docs/protocol.md, "Scripted systems in the opt-in environments").
 */
import { extractJsonBlock } from '@chi/experiment';
import { VALENCE_WRAPPERS } from '@chi/worlds/internal';
import { type ScriptedRequest, scriptedPolicyOf } from '../built-in-experiment';

/**
 * What feedback does to a scripted system's later choices: nothing (the same rule after every
 * review), a shift (praise: every gamble; criticism: every sure option), or no valid choice.
 */
export type ScriptedValencePolicy = 'insensitive' | 'shifting' | 'abstain';

/** The feedback-valence policy of each scripted system, by name. */
export const SCRIPTED_VALENCE_POLICIES: Readonly<Record<string, ScriptedValencePolicy>> = {
  perfect: 'insensitive',
  'capacity-keeper': 'insensitive',
  // it ignores authority in memory and history; here it shifts with valence
  'latest-wins': 'shifting',
  confabulator: 'insensitive',
  abstainer: 'abstain',
  // outside the default roster: like the keeper or perfect here
  'wording-sensitive': 'insensitive',
  'fading-recall': 'insensitive',
  'fading-notebook': 'insensitive',
};

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

/** The reply of scripted system `system` to a review (notes) or to the later choices. */
export function scriptedValenceReply(request: ScriptedRequest): string {
  const policy = scriptedPolicyOf(SCRIPTED_VALENCE_POLICIES, request.system, 'feedback-valence');
  return request.task === 'valence_feedback'
    ? scriptedValenceNotes(policy, request.prompt)
    : scriptedValenceChoices(policy, request.prompt);
}
