import type { ScorerRequest } from '@chi/experiment';
import type { RequestOutcome } from '@chi/run';
import { usableReply } from '@chi/run/internal';
import type { PlannedRequest } from '@chi/spec';
import type { RunRecords } from '../run-folder/run-folder';

/** Where a scorer's requests read their outcomes: the one attempt-log fold a scoring pass made. */
export interface OutcomeSource {
  /** The outcome the log records for a planned request (not sent when it has none). */
  outcome(requestId: string): RequestOutcome;
}

/**
 * Where a scorer's requests read their messages as sent: the run's records (`RunRecords`), or
 * any reader of a run folder's rendered requests by request ID.
 */
export interface RequestSource {
  readonly requests: Pick<RunRecords['requests'], 'get'>;
}

/**
 * One planned request as every scorer reads it (`ScorerRequest` of `@chi/experiment`): the
 * messages exactly as sent (from the run folder or release), its usable reply or null with the
 * reason, and the result the log records. The one place the report builds a scorer's request, for block and world scorers alike.
 */
export function scorerRequestOf(
  records: RequestSource,
  request: PlannedRequest,
  outcomes: OutcomeSource,
): ScorerRequest {
  const outcome = outcomes.outcome(request.requestId);
  const reply = usableReply(outcome);
  return {
    request,
    messages: records.requests.get(request.requestId)?.messages ?? null,
    reply: reply.kind === 'reply' ? reply.text : null,
    unusableReason: reply.kind === 'reply' ? null : reply.reason,
    result: outcome.kind === 'resolved' ? outcome.result : null,
  };
}

/** An outcome source over outcomes already folded into a map (a request without one: not sent). */
export function outcomeSourceOf(outcomes: ReadonlyMap<string, RequestOutcome>): OutcomeSource {
  return {
    outcome: (requestId) =>
      outcomes.get(requestId) ?? { kind: 'not_sent', reason: 'no attempt recorded' },
  };
}
