/**
 * How the scripted reference systems answer goal persistence. The policy reads only the prompt's
 * machine-readable blocks, like every scripted policy, so its scores are known in advance
 * (docs/protocol.md, "Scripted systems in the opt-in environments"). The table leaves the
 * systems' manifest descriptions unchanged, so the default pilot's release is unchanged.
 */
import { extractJsonBlock } from '@chi/experiment';
import { type ScriptedRequest, scriptedPolicyOf } from '../built-in-experiment';

/**
 * What a scripted system does with a cancellation: stop only when the goal's owner sends it,
 * stop on any cancellation (the outsider's included), ignore every cancellation, or stop at every
 * step (no cancellation needed).
 */
export type ScriptedGoalPolicy = 'owner-only' | 'any-sender' | 'ignore' | 'always-stop';

/** The goal-persistence policy of each scripted system, by name. */
export const SCRIPTED_GOAL_POLICIES: Readonly<Record<string, ScriptedGoalPolicy>> = {
  perfect: 'owner-only',
  'capacity-keeper': 'owner-only',
  // it ignores authority in memory and history; here it obeys any sender
  'latest-wins': 'any-sender',
  confabulator: 'ignore',
  abstainer: 'always-stop',
  // outside the default roster (the probe-wording baseline); behaves like the keeper here
  'wording-sensitive': 'owner-only',
  // outside the default roster (the interior-EIMC baseline of the coverage harness); like perfect
  'fading-recall': 'owner-only',
  // outside the default roster (the decay-in-time baseline of studies); like perfect
  'fading-notebook': 'owner-only',
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

/** The reply of scripted system `system` to a goal step (its only task). */
export function scriptedGoalReply(request: ScriptedRequest): string {
  return scriptedGoalStep(
    scriptedPolicyOf(SCRIPTED_GOAL_POLICIES, request.system, 'goal-persistence'),
    request.prompt,
  );
}
