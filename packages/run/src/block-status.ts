import type { BlockStatus, RunPlan } from '@chi/spec';
import { infrastructureReason, isInfrastructureFailure } from './failure-class';
import type { RequestOutcome } from './request-outcome';

/**
 * The status of every block: complete when every request of every system resolved without an
 * infrastructure failure ({@link isInfrastructureFailure}); not started when none of its requests
 * was attempted; incomplete otherwise, with one reason line per cause. The runner writes it to
 * `blocks.json` and the report recomputes it from the attempt log with the same function, so the
 * release and `chi verify` cannot disagree with the run about which blocks count.
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
            note(infrastructureReason(outcome.result));
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
