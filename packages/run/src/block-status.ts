import type { BlockStatus, PlannedBlock, RunPlan } from '@chi/spec';
import { infrastructureReason, isInfrastructureFailure } from '@chi/spec/internal';
import type { RequestOutcome } from './request-outcome';

/**
 * What a block's status reads of one request's outcome: its kind, and for a resolved request
 * whether it failed and why (an infrastructure failure's reason line), for a request not sent the
 * reason. A runner that keeps outcomes packed answers with it without rebuilding a result.
 */
export type BlockRequestState =
  | { readonly kind: 'resolved'; readonly failure: 'none' | 'model' }
  | { readonly kind: 'resolved'; readonly failure: 'infrastructure'; readonly reason: string }
  | { readonly kind: 'abandoned' }
  | { readonly kind: 'blocked' }
  | { readonly kind: 'not_sent'; readonly reason: string }
  | { readonly kind: 'pending' };

/** What {@link blockStatusOf} reads of an outcome (none: pending). */
export function blockRequestState(outcome: RequestOutcome | undefined): BlockRequestState {
  if (outcome === undefined) return { kind: 'pending' };
  switch (outcome.kind) {
    case 'resolved':
      if (isInfrastructureFailure(outcome.result))
        return {
          kind: 'resolved',
          failure: 'infrastructure',
          reason: infrastructureReason(outcome.result),
        };
      return { kind: 'resolved', failure: outcome.result.failure === 'none' ? 'none' : 'model' };
    case 'not_sent':
      return { kind: 'not_sent', reason: outcome.reason };
    default:
      return { kind: outcome.kind };
  }
}

/**
 * The status of one block, its requests' outcomes read through `stateOf` (by request ID and
 * position in `block.requestIds`): see {@link computeBlockStatuses}.
 */
export function blockStatusOf(
  block: PlannedBlock,
  stateOf: (requestId: string, position: number) => BlockRequestState,
): BlockStatus {
  let resolved = 0;
  let modelFailures = 0;
  let infrastructureFailures = 0;
  let abandoned = 0;
  let notSent = 0;
  const reasons = new Map<string, number>();
  const note = (reason: string) => reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
  block.requestIds.forEach((requestId, position) => {
    const state = stateOf(requestId, position);
    switch (state.kind) {
      case 'resolved':
        resolved += 1;
        if (state.failure === 'infrastructure') {
          infrastructureFailures += 1;
          note(state.reason);
        } else if (state.failure === 'model') modelFailures += 1;
        break;
      case 'abandoned':
        abandoned += 1;
        note('uncertain_attempt: possibly sent before an interruption, never re-sent');
        break;
      case 'blocked':
        notSent += 1;
        note('not sent: a request it depends on produced no notebook');
        break;
      case 'not_sent':
        notSent += 1;
        note(`not sent: ${state.reason}`);
        break;
      case 'pending':
        notSent += 1;
        note('not sent: run unfinished');
        break;
    }
  });
  const attempted = resolved + abandoned;
  const status: BlockStatus['status'] =
    reasons.size === 0 ? 'complete' : attempted === 0 ? 'not_started' : 'incomplete';
  return {
    blockId: block.blockId,
    experiment: block.experiment,
    worldSeed: block.worldSeed,
    load: block.load,
    status,
    reasons: [...reasons].map(([reason, count]) => `${count} x ${reason}`),
    requests: {
      total: block.requestIds.length,
      resolved,
      modelFailures,
      infrastructureFailures,
      abandoned,
      notSent,
    },
  };
}

/**
 * The status of every block: complete when every request of every system resolved without an
 * infrastructure failure (`isInfrastructureFailure`); not started when none of its requests
 * was attempted; incomplete otherwise, with one reason line per cause. The runner writes it to
 * `blocks.json` and the report recomputes it from the attempt log with the same function, so the
 * release and `chi verify` cannot disagree with the run about which blocks count.
 */
export function computeBlockStatuses(
  plan: RunPlan,
  outcomes: ReadonlyMap<string, RequestOutcome>,
): BlockStatus[] {
  return plan.blocks.map((block) =>
    blockStatusOf(block, (requestId) => blockRequestState(outcomes.get(requestId))),
  );
}
