import type { RequestOutcome } from '@chi/run';
import {
  attemptLogFoldOf,
  foldAttemptRecord,
  loggedOutcome,
  type RequestLogState,
} from '@chi/run/internal';
import type { AttemptRecord, ChatResult, RunPlan } from '@chi/spec';
import { requestOrdinalOf } from './plan-view';

/** Not a request of the plan (`requestOrdinalOf`). */
const NOT_PLANNED = -1;

/**
 * The attempt log folded, for every planned request, with `@chi/run`'s one fold
 * (`foldAttemptRecord`), keeping of each result only the index of the line that holds it: the
 * result itself is read back from the log when it is asked for ({@link PlannedOutcomes.outcome}),
 * so scoring never holds every request's result at once (`outcomesFromAttemptLog` of `@chi/run`
 * does: about 0.4 MB of live heap a world of the v0.1 run). Only the planned requests are folded
 * (the only ones scoring and block status ask about).
 */
export class PlannedOutcomes {
  readonly #attempts: readonly AttemptRecord[];
  readonly #ordinalOf: (requestId: string) => number;
  readonly #states: ReadonlyMap<string, RequestLogState<number>>;

  private constructor(
    plan: RunPlan,
    attempts: readonly AttemptRecord[],
    states: ReadonlyMap<string, RequestLogState<number>>,
  ) {
    this.#attempts = attempts;
    this.#ordinalOf = requestOrdinalOf(plan);
    this.#states = states;
  }

  /**
   * The outcomes of `attempts` for the requests of `plan`: the fold `@chi/run` made while it read
   * the log (`attemptLogFoldOf`: the log is not read again), or else one pass in file order.
   */
  static fold(plan: RunPlan, attempts: readonly AttemptRecord[]): PlannedOutcomes {
    const folded = attemptLogFoldOf(attempts);
    if (folded !== undefined) return new PlannedOutcomes(plan, attempts, folded);
    const ordinalOf = requestOrdinalOf(plan);
    const states = new Map<string, RequestLogState<number>>();
    let line = 0;
    for (const record of attempts) {
      const at = line++;
      if (ordinalOf(record.requestId) !== NOT_PLANNED) foldAttemptRecord(states, record, () => at);
    }
    return new PlannedOutcomes(plan, attempts, states);
  }

  /** The folded state of a planned request (the fold of `@chi/run` holds every request's). */
  #stateOf(requestId: string): RequestLogState<number> | undefined {
    return this.#ordinalOf(requestId) === NOT_PLANNED ? undefined : this.#states.get(requestId);
  }

  #resultAt = (line: number): ChatResult => {
    const result = (this.#attempts[line] as AttemptRecord).result;
    if (result === null || result === undefined)
      throw new Error(`attempt log line ${line + 1} changed since it was read`);
    return result;
  };

  /**
   * The outcome the log records for a planned request (`loggedOutcome` of `@chi/run`), read from
   * the log now; a request without a record, or not in the plan, was not sent.
   */
  outcome(requestId: string): RequestOutcome {
    return loggedOutcome(this.#stateOf(requestId), this.#resultAt);
  }

  /** The outcomes of some planned requests, as `computeBlockStatuses` of `@chi/run` reads them. */
  outcomesOf(requestIds: readonly string[]): Map<string, RequestOutcome> {
    const outcomes = new Map<string, RequestOutcome>();
    for (const requestId of requestIds)
      if (this.#ordinalOf(requestId) !== NOT_PLANNED)
        outcomes.set(requestId, this.outcome(requestId));
    return outcomes;
  }
}
