import {
  type CheckpointAccuracy,
  type Decision,
  type HistoryId,
  type HistoryScore,
  InvalidArgumentError,
  type ValidAnswer,
} from '@chi/spec';
import { type CorrectionResponse, HISTORY_IDS, type HistoryContinuity } from '@chi/spec/internal';
import { continuity, decisionVector, experienceDivergence } from './decision-distance';
import { isList } from './guards';
import { ratio } from './ratio';

const VALID_ANSWERS: readonly string[] = ['A', 'B', 'unknown'];

function checkValid(valid: readonly ValidAnswer[], field: string): void {
  if (!isList(valid))
    throw new InvalidArgumentError(field, 'expected an array of warranted answers');
  valid.forEach((answer, index) => {
    if (!VALID_ANSWERS.includes(answer)) {
      throw new InvalidArgumentError(
        `${field}[${index}]`,
        `expected A, B or unknown, found ${JSON.stringify(answer)}`,
      );
    }
  });
}

function checkSameLength(
  decisions: readonly unknown[],
  valid: readonly unknown[],
  field: string,
): void {
  if (!isList(decisions)) throw new InvalidArgumentError(field, 'expected an array of decisions');
  if (decisions.length !== valid.length) {
    throw new InvalidArgumentError(
      field,
      `expected ${valid.length} entries (one per environment), found ${decisions.length}`,
    );
  }
  if (valid.length === 0)
    throw new InvalidArgumentError(field, 'expected at least one environment, found none');
}

/**
 * Task accuracy, explicit-unknown rate and invalid rate of one checkpoint, each over all
 * environments. A decision is correct when it equals the warranted answer (an explicit unknown is
 * correct where unknown is warranted, e.g. checkpoint 0); an invalid decision counts as incorrect.
 *
 * @example
 * ```ts
 * checkpointAccuracy(['A', 'unknown', 'invalid', 'B'], ['A', 'B', 'B', 'B']).accuracy;
 * // { numerator: 2, denominator: 4, rate: 0.5 }
 * ```
 */
export function checkpointAccuracy(
  decisions: readonly Decision[],
  valid: readonly ValidAnswer[],
): CheckpointAccuracy {
  checkValid(valid, 'valid');
  checkSameLength(decisions, valid, 'decisions');
  decisionVector(decisions); // validates the decision values
  let correct = 0;
  let unknown = 0;
  let invalid = 0;
  decisions.forEach((decision, k) => {
    if (decision === valid[k]) correct++;
    if (decision === 'unknown') unknown++;
    if (decision === 'invalid') invalid++;
  });
  return {
    accuracy: ratio(correct, valid.length),
    explicitUnknownRate: ratio(unknown, valid.length),
    invalidRate: ratio(invalid, valid.length),
  };
}

/** Inputs of {@link correctionResponse}: decisions and warranted answers around the correction. */
export interface CorrectionInputs {
  /** Decisions at checkpoint 3 (before the authoritative correction). */
  readonly decisionsBefore: readonly Decision[];
  /** Decisions at checkpoint 4 (after it). */
  readonly decisionsAfter: readonly Decision[];
  /** Warranted answers at checkpoint 3. */
  readonly validBefore: readonly ValidAnswer[];
  /** Warranted answers at checkpoint 4: the newly valid rule. */
  readonly validAfter: readonly ValidAnswer[];
}

/**
 * Correction response: over the environments whose warranted answer changed from checkpoint 3 to
 * checkpoint 4, accuracy of the checkpoint 4 decisions against the newly valid answers minus
 * accuracy of the checkpoint 3 decisions against those same answers. In [-1, 1]; +1 means every
 * changed environment followed the correction. Null with the reason when nothing changed.
 *
 * @example
 * ```ts
 * correctionResponse({
 *   decisionsBefore: ['A', 'A'], decisionsAfter: ['B', 'A'],
 *   validBefore: ['A', 'A'], validAfter: ['B', 'B'],
 * }).value; // 0.5 - 0 = 0.5
 * ```
 */
export function correctionResponse(inputs: CorrectionInputs): CorrectionResponse {
  const { decisionsBefore, decisionsAfter, validBefore, validAfter } = inputs;
  checkValid(validBefore, 'validBefore');
  checkValid(validAfter, 'validAfter');
  checkSameLength(validAfter, validBefore, 'validAfter');
  checkSameLength(decisionsBefore, validBefore, 'decisionsBefore');
  checkSameLength(decisionsAfter, validBefore, 'decisionsAfter');
  decisionVector(decisionsBefore);
  decisionVector(decisionsAfter);
  const changedEnvironments: number[] = [];
  validAfter.forEach((answer, k) => {
    if (answer !== validBefore[k]) changedEnvironments.push(k);
  });
  let before = 0;
  let after = 0;
  for (const k of changedEnvironments) {
    if (decisionsBefore[k] === validAfter[k]) before++;
    if (decisionsAfter[k] === validAfter[k]) after++;
  }
  const beforeRatio = ratio(before, changedEnvironments.length);
  const afterRatio = ratio(after, changedEnvironments.length);
  if (changedEnvironments.length === 0) {
    return {
      value: null,
      changedEnvironments,
      before: beforeRatio,
      after: afterRatio,
      reason: 'no environment changed its warranted answer: there is no correction to respond to',
    };
  }
  return {
    value: (afterRatio.rate as number) - (beforeRatio.rate as number),
    changedEnvironments,
    before: beforeRatio,
    after: afterRatio,
    reason: null,
  };
}

/** Decisions (or warranted answers) per history, checkpoint 0-4 and environment. */
export type PerHistoryGrid<T> = Readonly<Record<HistoryId, readonly (readonly T[])[]>>;

/** What {@link scoreHistory} needs for one world. */
export interface HistoryObservations {
  /** `HistoryWorld.validAnswers`: warranted answer per history, checkpoint and environment. */
  readonly validAnswers: PerHistoryGrid<ValidAnswer>;
  /** The observed decisions in the same shape (use `decisionOf` on parsed task replies). */
  readonly decisions: PerHistoryGrid<Decision>;
}

/** The checkpoint pairs reported as continuity: primary 2 -> 3, supplementary 1 -> 2 and 1 -> 3. */
export const CONTINUITY_PAIRS = Object.freeze({
  primary: [2, 3] as const,
  supplementary: [[1, 2] as const, [1, 3] as const],
});

/** Number of checkpoints of the pilot's history experiment (0 to 4). */
export const CHECKPOINT_COUNT = 5;

function checkGrid<T>(grid: PerHistoryGrid<T>, field: string, environments: number | null): number {
  if (typeof grid !== 'object' || grid === null)
    throw new InvalidArgumentError(field, 'expected an object with histories A, B and A2');
  let width = environments;
  for (const history of HISTORY_IDS) {
    const rows = grid[history];
    if (!isList(rows) || rows.length !== CHECKPOINT_COUNT) {
      throw new InvalidArgumentError(
        `${field}.${history}`,
        `expected ${CHECKPOINT_COUNT} checkpoints (0-4), found ${isList(rows) ? rows.length : typeof rows}`,
      );
    }
    rows.forEach((row, checkpoint) => {
      if (!isList(row))
        throw new InvalidArgumentError(`${field}.${history}[${checkpoint}]`, 'expected an array');
      if (width === null) width = row.length;
      if (row.length !== width || row.length === 0) {
        throw new InvalidArgumentError(
          `${field}.${history}[${checkpoint}]`,
          `expected ${width || 'at least 1'} environments, found ${row.length}`,
        );
      }
    });
  }
  return width ?? 0;
}

/** Throws unless both grids have histories A, B and A2, five checkpoints and one common width. */
export function checkHistoryObservations(observations: HistoryObservations): void {
  if (typeof observations !== 'object' || observations === null) {
    throw new InvalidArgumentError('observations', 'expected { validAnswers, decisions }');
  }
  const environments = checkGrid(observations.validAnswers, 'validAnswers', null);
  checkGrid(observations.decisions, 'decisions', environments);
}

/**
 * Every history metric of one world: per checkpoint and history the decisions, their vector,
 * accuracy, explicit-unknown rate and invalid rate, and the experience divergence
 * D(A, B) - D(A, A2); per history the continuity (primary 2 -> 3 between the two neutral
 * checkpoints; supplementary 1 -> 2 and 1 -> 3 across the neutral interval) and the correction
 * response (checkpoint 3 -> 4).
 *
 * @throws InvalidArgumentError when a history lacks a checkpoint, the environment counts differ,
 *   or a value is not a decision / warranted answer.
 */
export function scoreHistory(observations: HistoryObservations): HistoryScore {
  checkHistoryObservations(observations);
  const { validAnswers, decisions } = observations;
  const at = <T>(grid: PerHistoryGrid<T>, history: HistoryId, checkpoint: number): readonly T[] =>
    grid[history][checkpoint] as readonly T[];

  const checkpoints: HistoryScore['checkpoints'] = [];
  for (let checkpoint = 0; checkpoint < CHECKPOINT_COUNT; checkpoint++) {
    const result = (history: HistoryId) => {
      const observed = at(decisions, history, checkpoint);
      return {
        decisions: [...observed],
        vector: decisionVector(observed),
        accuracy: checkpointAccuracy(observed, at(validAnswers, history, checkpoint)),
      };
    };
    checkpoints.push({
      checkpoint,
      histories: { A: result('A'), B: result('B'), A2: result('A2') },
      divergence: experienceDivergence(
        at(decisions, 'A', checkpoint),
        at(decisions, 'B', checkpoint),
        at(decisions, 'A2', checkpoint),
      ),
    });
  }

  const continuityOf = (history: HistoryId): HistoryContinuity => {
    const pair = ([from, to]: readonly [number, number]) =>
      continuity(from, at(decisions, history, from), to, at(decisions, history, to));
    return {
      primary: pair(CONTINUITY_PAIRS.primary),
      supplementary: CONTINUITY_PAIRS.supplementary.map(pair),
    };
  };
  const correctionOf = (history: HistoryId): CorrectionResponse =>
    correctionResponse({
      decisionsBefore: at(decisions, history, 3),
      decisionsAfter: at(decisions, history, 4),
      validBefore: at(validAnswers, history, 3),
      validAfter: at(validAnswers, history, 4),
    });

  return {
    checkpoints,
    continuity: { A: continuityOf('A'), B: continuityOf('B'), A2: continuityOf('A2') },
    correctionResponse: { A: correctionOf('A'), B: correctionOf('B'), A2: correctionOf('A2') },
  };
}
