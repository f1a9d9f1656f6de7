import type { RequestOutcome } from '@chi/run';
import type { AttemptRecord, RunPlan } from '@chi/spec';
import { requestOrdinalOf } from './plan-view';

/** No line of the log (typed-array slot empty). */
const NONE = -1;
/** Not a request of the plan (`requestOrdinalOf`). */
const NOT_PLANNED = -1;

/**
 * The attempt log folded, for every planned request, to where its outcome is in the log: the
 * index of the line holding its last result and of its last `abandoned` line (two `Int32Array`s,
 * 8 bytes a request), plus the few attempts still open at the end. The outcome itself is read
 * back from the log when it is asked for ({@link PlannedOutcomes.outcome}), so scoring never holds
 * every request's result at once (`outcomesFromAttemptLog` of `@chi/run` does: about 0.4 MB of
 * live heap a world of the v0.1 run).
 *
 * The fold is `foldAttemptLog` + `loggedOutcome` of `@chi/run`, restricted to the planned
 * requests (the only ones scoring and block status ask about): a `before_send` opens an attempt,
 * its `after_response` closes it with a result (the last result wins), an `abandoned` closes it
 * without one; an attempt closed only by a record of its own ID.
 */
export class PlannedOutcomes {
  readonly #attempts: readonly AttemptRecord[];
  readonly #ordinalOf: (requestId: string) => number;
  readonly #seen: Uint8Array;
  readonly #resultLine: Int32Array;
  readonly #abandonedLine: Int32Array;
  /** Planned request index -> attempt ID of its open attempt, for attempts not closed (yet). */
  readonly #open = new Map<number, string>();

  private constructor(plan: RunPlan, attempts: readonly AttemptRecord[]) {
    this.#attempts = attempts;
    this.#ordinalOf = requestOrdinalOf(plan);
    const count = plan.requests.length;
    this.#seen = new Uint8Array(count);
    this.#resultLine = new Int32Array(count).fill(NONE);
    this.#abandonedLine = new Int32Array(count).fill(NONE);
  }

  /** Folds `attempts` (one pass in file order) for the requests of `plan`. */
  static fold(plan: RunPlan, attempts: readonly AttemptRecord[]): PlannedOutcomes {
    const outcomes = new PlannedOutcomes(plan, attempts);
    let line = 0;
    for (const record of attempts) outcomes.#add(record, line++);
    return outcomes;
  }

  #add(record: AttemptRecord, line: number): void {
    const index = this.#ordinalOf(record.requestId);
    if (index === NOT_PLANNED) return;
    this.#seen[index] = 1;
    if (record.phase === 'before_send') {
      this.#open.set(index, record.attemptId);
      return;
    }
    if (this.#open.get(index) === record.attemptId) this.#open.delete(index);
    if (record.phase === 'after_response') {
      if (record.result !== null) this.#resultLine[index] = line;
    } else this.#abandonedLine[index] = line;
  }

  /**
   * The outcome the log records for a planned request (`loggedOutcome` of `@chi/run`), read from
   * the log now; a request without a record, or not in the plan, was not sent.
   */
  outcome(requestId: string): RequestOutcome {
    const index = this.#ordinalOf(requestId);
    if (index === NOT_PLANNED || this.#seen[index] === 0)
      return { kind: 'not_sent', reason: 'no attempt recorded' };
    const resultLine = this.#resultLine[index] as number;
    if (resultLine !== NONE) {
      const result = (this.#attempts[resultLine] as AttemptRecord).result;
      if (result === null || result === undefined)
        throw new Error(`attempt log line ${resultLine + 1} changed since it was read`);
      return { kind: 'resolved', result };
    }
    if (this.#open.has(index))
      return { kind: 'abandoned', reason: 'possibly sent; no response recorded' };
    const abandonedLine = this.#abandonedLine[index] as number;
    const reason =
      abandonedLine === NONE ? null : (this.#attempts[abandonedLine] as AttemptRecord).reason;
    return { kind: 'abandoned', reason: reason ?? 'abandoned' };
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
