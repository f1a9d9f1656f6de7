import { parseTaskReply } from '@chi/scoring';
import { decisionOf } from '@chi/scoring/internal';
import type { ClassifiedTaskAnswer, Decision, HistoryWorld } from '@chi/spec';

/**
 * A reply as `usableReply` (of `@chi/run`) gives it: its text, or why it is unusable (the shape
 * of `@chi/run`'s `UsableReply`, named here so the folder does not import the run package).
 */
export type UsableReply =
  | { readonly kind: 'reply'; readonly text: string }
  | { readonly kind: 'unusable'; readonly reason: string };

/** One history probe as scored: a decision per environment, or why the reply was unusable. */
export interface HistoryProbeReading {
  /** One decision per environment of the world, in environment order. */
  readonly decisions: readonly Decision[];
  /** Why the probe gave no usable reply (every decision is then `invalid`); null when it did. */
  readonly unusableReason: string | null;
}

/**
 * Reads one history probe's reply into decisions: the one reading that the release's scores and
 * traces (`scoreRun`) and the CHIS log (`chisEntriesFor` of `@chi/pilot`) both use. A reply that
 * `usableReply` (of `@chi/run`) rejects, any failure class included (a truncated text is never
 * parsed), gives `invalid` for every environment; otherwise the text is parsed against the IDs
 * the request asked, and an environment it did not ask is `invalid`.
 *
 * @param askedIds - the IDs of the request's QUESTIONS block, or null when it has none.
 */
export function readHistoryProbe(
  reply: UsableReply,
  askedIds: readonly string[] | null,
  world: Pick<HistoryWorld, 'environments'>,
): HistoryProbeReading {
  if (reply.kind === 'unusable' || askedIds === null) {
    return {
      decisions: world.environments.map(() => 'invalid' as const),
      unusableReason: reply.kind === 'unusable' ? reply.reason : 'no QUESTIONS block',
    };
  }
  const parsed = parseTaskReply(reply.text, [...askedIds]);
  const byId = new Map(parsed.answers.map((answer) => [answer.id, answer]));
  return {
    decisions: world.environments.map((environment) =>
      decisionOf(byId.get(environment.id) ?? notAsked(environment.id), environment.labels),
    ),
    unusableReason: null,
  };
}

function notAsked(id: string): ClassifiedTaskAnswer {
  return { id, status: 'missing', answer: null, detail: 'no usable reply: not asked' };
}
