import { type Decision, InvalidArgumentError } from '@chi/spec';
import type {
  Continuity,
  DecisionDistance,
  DecisionVector,
  ExperienceDivergence,
} from '@chi/spec/internal';
import { isList } from './guards';

const DECISIONS: readonly string[] = ['A', 'B', 'unknown', 'invalid'];

/**
 * The coordinate of a decision: A = 0, unknown = 0.5, B = 1; invalid has none (null).
 *
 * @example
 * ```ts
 * decisionCoordinate('unknown'); // 0.5
 * decisionCoordinate('invalid'); // null
 * ```
 */
export function decisionCoordinate(decision: Decision): 0 | 0.5 | 1 | null {
  switch (decision) {
    case 'A':
      return 0;
    case 'unknown':
      return 0.5;
    case 'B':
      return 1;
    default:
      return null;
  }
}

function checkDecisions(decisions: readonly Decision[], field: string): void {
  if (!isList(decisions)) throw new InvalidArgumentError(field, 'expected an array of decisions');
  decisions.forEach((decision, index) => {
    if (!DECISIONS.includes(decision)) {
      throw new InvalidArgumentError(
        `${field}[${index}]`,
        `expected A, B, unknown or invalid, found ${JSON.stringify(decision)}`,
      );
    }
  });
}

/** The fixed decision vector of a checkpoint, with invalid decisions reported separately. */
export function decisionVector(decisions: readonly Decision[]): DecisionVector {
  checkDecisions(decisions, 'decisions');
  const invalidIndices: number[] = [];
  const coordinates = decisions.map((decision, index) => {
    const coordinate = decisionCoordinate(decision);
    if (coordinate === null) invalidIndices.push(index);
    return coordinate;
  });
  return { coordinates, invalidIndices };
}

/**
 * D = mean absolute coordinate difference of two decision vectors of equal length, or null with
 * the reason when any coordinate of either is invalid (invalid trajectories never produce an
 * artificial agreement).
 *
 * @throws InvalidArgumentError when the vectors are empty, differ in length, or hold a value that
 *   is not a decision.
 * @example
 * ```ts
 * decisionDistance(['A', 'B', 'unknown', 'A'], ['A', 'A', 'B', 'A']).value; // (0 + 1 + 0.5 + 0) / 4 = 0.375
 * ```
 */
export function decisionDistance(
  left: readonly Decision[],
  right: readonly Decision[],
): DecisionDistance {
  checkDecisions(left, 'left');
  checkDecisions(right, 'right');
  if (left.length !== right.length) {
    throw new InvalidArgumentError(
      'right',
      `expected ${left.length} decisions like left, found ${right.length}`,
    );
  }
  if (left.length === 0)
    throw new InvalidArgumentError('left', 'expected at least one decision, found none');
  let invalidLeft = 0;
  let invalidRight = 0;
  let sum = 0;
  for (let k = 0; k < left.length; k++) {
    const a = decisionCoordinate(left[k] as Decision);
    const b = decisionCoordinate(right[k] as Decision);
    if (a === null) invalidLeft++;
    if (b === null) invalidRight++;
    if (a !== null && b !== null) sum += Math.abs(a - b);
  }
  if (invalidLeft + invalidRight > 0) {
    return {
      value: null,
      coordinates: left.length,
      invalidLeft,
      invalidRight,
      reason: `invalid decisions (left ${invalidLeft}, right ${invalidRight}): D is undefined`,
    };
  }
  return {
    value: sum / left.length,
    coordinates: left.length,
    invalidLeft,
    invalidRight,
    reason: null,
  };
}

/**
 * Experience divergence D(A, B) - D(A, A2): the distance between different histories minus the
 * same-history control, in [-1, 1]; null with the reason when either distance is null.
 *
 * @example
 * ```ts
 * experienceDivergence(['A', 'A'], ['B', 'B'], ['A', 'B']).value; // 1 - 0.5 = 0.5
 * ```
 */
export function experienceDivergence(
  historyA: readonly Decision[],
  historyB: readonly Decision[],
  historyA2: readonly Decision[],
): ExperienceDivergence {
  const differentHistories = decisionDistance(historyA, historyB);
  const sameHistory = decisionDistance(historyA, historyA2);
  if (differentHistories.value === null || sameHistory.value === null) {
    const which = [
      differentHistories.value === null ? 'D(A, B)' : null,
      sameHistory.value === null ? 'D(A, A2)' : null,
    ].filter((name) => name !== null);
    return {
      differentHistories,
      sameHistory,
      value: null,
      reason: `${which.join(' and ')} undefined (invalid decisions)`,
    };
  }
  return {
    differentHistories,
    sameHistory,
    value: differentHistories.value - sameHistory.value,
    reason: null,
  };
}

/**
 * Continuity 1 - D between two checkpoints of one history; null when D is null.
 *
 * @example
 * ```ts
 * continuity(2, ['A', 'B', 'A', 'A'], 3, ['A', 'B', 'A', 'B']).value; // 1 - 0.25 = 0.75
 * ```
 */
export function continuity(
  fromCheckpoint: number,
  earlier: readonly Decision[],
  toCheckpoint: number,
  later: readonly Decision[],
): Continuity {
  for (const [field, checkpoint] of [
    ['fromCheckpoint', fromCheckpoint],
    ['toCheckpoint', toCheckpoint],
  ] as const) {
    if (!Number.isInteger(checkpoint) || checkpoint < 0 || checkpoint > 4) {
      throw new InvalidArgumentError(
        field,
        `expected a checkpoint 0-4, found ${String(checkpoint)}`,
      );
    }
  }
  const distance = decisionDistance(earlier, later);
  return {
    fromCheckpoint,
    toCheckpoint,
    value: distance.value === null ? null : 1 - distance.value,
    distance,
  };
}
