import { type ChisEntry, InvalidArgumentError } from '@chi/spec';
import { describeEntry } from './trajectories';

/**
 * Which numbers of an entry a dynamic compares:
 * - `'decisionVector'` (the default): the fixed decision vector (A = 0, unknown = 0.5, B = 1; a null
 *   coordinate is an invalid answer);
 * - `{ profileFeatures: [...] }`: the named profile features, in the given order.
 */
export type ChisResponse = 'decisionVector' | { readonly profileFeatures: readonly string[] };

/** A distance, or null with the reason it is undefined. */
export interface Distance {
  readonly value: number | null;
  readonly reason: string | null;
}

/** The coordinates of an entry's response (null marks an invalid coordinate), or why it has none. */
export type ResponseCoordinates =
  | {
      readonly coordinates: readonly (number | null)[];
      readonly labels: readonly string[];
      readonly reason: null;
    }
  | { readonly coordinates: null; readonly labels: null; readonly reason: string };

function assertResponse(response: ChisResponse): void {
  if (response === 'decisionVector') return;
  if (
    typeof response !== 'object' ||
    response === null ||
    !Array.isArray(response.profileFeatures) ||
    response.profileFeatures.length === 0
  ) {
    throw new InvalidArgumentError(
      'response',
      `expected 'decisionVector' or { profileFeatures: [at least one name] }, found ${JSON.stringify(response)}`,
    );
  }
}

/**
 * The coordinates an entry contributes under `response`. An entry without a decision vector, or
 * without one of the named profile features, has none (the reason says which); a null coordinate
 * is kept as null so distances can refuse it.
 */
export function responseCoordinates(
  entry: ChisEntry,
  response: ChisResponse = 'decisionVector',
): ResponseCoordinates {
  assertResponse(response);
  if (response === 'decisionVector') {
    if (entry.decisionVector === null) {
      return {
        coordinates: null,
        labels: null,
        reason: `${describeEntry(entry)} has no decision vector`,
      };
    }
    return {
      coordinates: entry.decisionVector,
      labels: entry.decisionVector.map((_, index) => `decision coordinate ${index}`),
      reason: null,
    };
  }
  const coordinates: (number | null)[] = [];
  for (const feature of response.profileFeatures) {
    if (!Object.hasOwn(entry.profile, feature)) {
      return {
        coordinates: null,
        labels: null,
        reason: `${describeEntry(entry)} has no profile feature ${JSON.stringify(feature)}`,
      };
    }
    coordinates.push(entry.profile[feature] ?? null);
  }
  return {
    coordinates,
    labels: response.profileFeatures.map((feature) => `profile feature ${JSON.stringify(feature)}`),
    reason: null,
  };
}

function assertComparable(
  a: readonly (number | null)[],
  b: readonly (number | null)[],
  where: string,
): void {
  if (!Array.isArray(a) || !Array.isArray(b)) {
    throw new InvalidArgumentError(where, 'expected two arrays of coordinates');
  }
  if (a.length !== b.length) {
    throw new InvalidArgumentError(
      where,
      `expected vectors of equal length, found ${a.length} and ${b.length} coordinates`,
    );
  }
  if (a.length === 0)
    throw new InvalidArgumentError(where, 'expected at least one coordinate, found none');
  for (const vector of [a, b]) {
    const bad = vector.find((x) => x !== null && !Number.isFinite(x));
    if (bad !== undefined) {
      throw new InvalidArgumentError(where, `expected finite coordinates or null, found ${bad}`);
    }
  }
}

/**
 * The pilot's distance: the mean absolute coordinate difference, defined only when every
 * coordinate of both vectors is valid. A null (invalid) coordinate gives a null distance with the
 * reason, never an artificial agreement.
 *
 * @throws `InvalidArgumentError` when the vectors differ in length, are empty or hold a non-finite number.
 * @example
 * ```ts
 * meanAbsoluteDifference([0, 0.5, 1, 1], [0, 1, 1, 0]).value; // (0 + 0.5 + 0 + 1) / 4 = 0.375
 * meanAbsoluteDifference([0, null], [0, 1]).value; // null
 * ```
 */
export function meanAbsoluteDifference(
  a: readonly (number | null)[],
  b: readonly (number | null)[],
): Distance {
  assertComparable(a, b, 'vectors');
  return distanceOfCoordinates(a, b, (index) => `coordinate ${index}`, [
    'first vector',
    'second vector',
  ]);
}

function distanceOfCoordinates(
  a: readonly (number | null)[],
  b: readonly (number | null)[],
  label: (index: number) => string,
  owners: readonly [string, string],
): Distance {
  let sum = 0;
  for (let index = 0; index < a.length; index++) {
    const x = a[index];
    const y = b[index];
    if (x === null || x === undefined) {
      return { value: null, reason: `${label(index)} of ${owners[0]} is invalid (null)` };
    }
    if (y === null || y === undefined) {
      return { value: null, reason: `${label(index)} of ${owners[1]} is invalid (null)` };
    }
    sum += Math.abs(x - y);
  }
  return { value: sum / a.length, reason: null };
}

/**
 * The distance between the responses of two entries: `meanAbsoluteDifference` of their
 * coordinates under `response`. Null, with the reason, when either entry lacks the response or has
 * an invalid coordinate.
 *
 * @throws `InvalidArgumentError` when the two responses have different numbers of coordinates.
 */
export function responseDistance(
  a: ChisEntry,
  b: ChisEntry,
  response: ChisResponse = 'decisionVector',
): Distance {
  const first = responseCoordinates(a, response);
  if (first.reason !== null) return { value: null, reason: first.reason };
  const second = responseCoordinates(b, response);
  if (second.reason !== null) return { value: null, reason: second.reason };
  assertComparable(
    first.coordinates,
    second.coordinates,
    `response of ${describeEntry(a)} and ${describeEntry(b)}`,
  );
  return distanceOfCoordinates(
    first.coordinates,
    second.coordinates,
    (index) => first.labels[index]!,
    [describeEntry(a), describeEntry(b)],
  );
}
