import { foldAttemptLog, loggedOutcome } from '@chi/run/internal';
import type { AttemptRecord, RunPlan } from '@chi/spec';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PlannedOutcomes } from './planned-outcomes';

const PLANNED = ['r0', 'r1', 'r2', 'r3'];
const plan = {
  requests: PLANNED.map((requestId) => ({ requestId })),
  blocks: [],
} as unknown as RunPlan;

/** A log record with the fields the fold reads (the rest of a record plays no part in it). */
function record(
  requestId: string,
  attempt: number,
  phase: AttemptRecord['phase'],
  result: string | null,
  reason: string | undefined,
): AttemptRecord {
  return {
    requestId,
    attemptId: `${requestId}#${attempt}`,
    phase,
    result:
      phase === 'after_response' && result !== null ? { failure: 'none', text: result } : null,
    ...(phase === 'abandoned' && reason !== undefined ? { reason } : {}),
  } as unknown as AttemptRecord;
}

const logs = fc.array(
  fc
    .tuple(
      fc.constantFrom(...PLANNED, 'unplanned'),
      fc.integer({ min: 1, max: 3 }),
      fc.constantFrom<AttemptRecord['phase']>('before_send', 'after_response', 'abandoned'),
      fc.option(fc.string({ minLength: 1, maxLength: 4 })),
      fc.option(fc.constantFrom('killed', 'resumed'), { nil: undefined }),
    )
    .map(([requestId, attempt, phase, result, reason]) =>
      record(requestId, attempt, phase, result, reason),
    ),
  { maxLength: 30 },
);

describe('PlannedOutcomes', () => {
  it("gives every planned request the outcome of @chi/run's fold (foldAttemptLog + loggedOutcome), for any log", () => {
    fc.assert(
      fc.property(logs, (log) => {
        const folded = foldAttemptLog(log);
        const outcomes = PlannedOutcomes.fold(plan, log);
        for (const requestId of PLANNED)
          expect(outcomes.outcome(requestId)).toEqual(loggedOutcome(folded.get(requestId)));
        expect(outcomes.outcome('unplanned')).toEqual({
          kind: 'not_sent',
          reason: 'no attempt recorded',
        });
        expect([...outcomes.outcomesOf(['r1', 'unplanned', 'r3']).keys()]).toEqual(['r1', 'r3']);
      }),
      { seed: 17, numRuns: 300 },
    );
  });

  it('reads a resolved outcome back from the log when asked for, holding only its line', () => {
    const log = [
      record('r0', 1, 'before_send', null, undefined),
      record('r0', 1, 'after_response', 'first', undefined),
      record('r0', 2, 'before_send', null, undefined),
      record('r0', 2, 'after_response', 'second', undefined),
    ];
    const reads: number[] = [];
    const onDisk = new Proxy(log, {
      get(target, property, receiver) {
        if (typeof property === 'string' && /^\d+$/.test(property)) reads.push(Number(property));
        return Reflect.get(target, property, receiver);
      },
    });
    const outcomes = PlannedOutcomes.fold(plan, onDisk);
    reads.length = 0;
    expect(outcomes.outcome('r0')).toEqual({ kind: 'resolved', result: log[3]?.result });
    // the last result's line, and no other
    expect(reads).toEqual([3]);
  });
});
