import {
  type BlockStatus,
  type ChatResult,
  INFRASTRUCTURE_FAILURES,
  type RunPlan,
} from '@chi/spec';

/** Where one registered request ended up. */
export type RequestOutcome =
  | { readonly kind: 'resolved'; readonly result: ChatResult }
  /** Possibly sent before a crash, outcome unknown, never re-sent (paid systems). */
  | { readonly kind: 'abandoned' }
  /** Not sent because a request it needs did not produce a notebook. */
  | { readonly kind: 'blocked'; readonly by: string }
  /** Not sent because the run stopped (budget, interruption, error). */
  | { readonly kind: 'not_sent'; readonly reason: string }
  /** Not reached yet. */
  | { readonly kind: 'pending' };

/** HTTP statuses that are account problems (key, credits), never the model's answer. */
export const ACCOUNT_FAILURE_STATUSES: readonly number[] = [401, 402];

/** True when a request failed because of the account (HTTP 401 or 402), not the model. */
export function isAccountFailure(result: ChatResult): boolean {
  if (result.failure !== 'http_fatal') return false;
  const status = result.tries[result.tries.length - 1]?.status ?? null;
  return status !== null && ACCOUNT_FAILURE_STATUSES.includes(status);
}

/**
 * True for failures that make a block incomplete: the infrastructure classes of `@chi/spec`
 * (`http_retryable`, `connection_retryable`, `budget_refused`) and account failures (HTTP 401 or
 * 402 recorded as `http_fatal`), which say nothing about the model.
 */
export function isInfrastructureFailure(result: ChatResult): boolean {
  return INFRASTRUCTURE_FAILURES.includes(result.failure) || isAccountFailure(result);
}

/**
 * The status of every block: complete when every request of every system resolved without an
 * infrastructure failure; not started when none of its requests was attempted; incomplete
 * otherwise, with one reason line per cause.
 */
export function computeBlockStatuses(
  plan: RunPlan,
  outcomes: ReadonlyMap<string, RequestOutcome>,
): BlockStatus[] {
  return plan.blocks.map((block) => {
    let resolved = 0;
    let modelFailures = 0;
    let infrastructureFailures = 0;
    let abandoned = 0;
    let notSent = 0;
    const reasons = new Map<string, number>();
    const note = (reason: string) => reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
    for (const requestId of block.requestIds) {
      const outcome = outcomes.get(requestId) ?? { kind: 'pending' };
      switch (outcome.kind) {
        case 'resolved':
          resolved += 1;
          if (isInfrastructureFailure(outcome.result)) {
            infrastructureFailures += 1;
            note(
              isAccountFailure(outcome.result)
                ? `account failure: HTTP ${outcome.result.tries[outcome.result.tries.length - 1]?.status}`
                : `infrastructure failure: ${outcome.result.failure}`,
            );
          } else if (outcome.result.failure !== 'none') {
            modelFailures += 1;
          }
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
          note(`not sent: ${outcome.reason}`);
          break;
        case 'pending':
          notSent += 1;
          note('not sent: run unfinished');
          break;
      }
    }
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
  });
}
