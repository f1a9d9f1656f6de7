import { InvalidArgumentError, type MemoryRecord } from '@chi/spec';
import { comparableTime } from './event-time';

/**
 * What a question about one key resolves to: the winning record's value and source and its index
 * in the records given, or unknown (all three null) when no record is eligible.
 */
export type Resolution =
  | { readonly value: string; readonly source: string; readonly recordIndex: number }
  | { readonly value: null; readonly source: null; readonly recordIndex: null };

const UNKNOWN: Resolution = { value: null, source: null, recordIndex: null };

/**
 * Applies the precedence rule to the records at `indices` (all of one key): among those with
 * eventTime <= cutoff (all of them when cutoff is null), authority 2 beats 1, and within an
 * authority the later eventTime wins. Equal authority and equal time at the top is ambiguous and
 * throws, naming both records.
 */
function resolveIndices(
  records: readonly MemoryRecord[],
  indices: Iterable<number>,
  key: string,
  cutoff: string | null,
): Resolution {
  let best = -1;
  let bestAuthority = 0;
  let bestTime = '';
  let tiedWith = -1;
  for (const index of indices) {
    const record = records[index] as MemoryRecord;
    const authority: number = record.authority;
    if (authority !== 1 && authority !== 2) {
      throw new InvalidArgumentError(
        `records[${index}].authority`,
        `expected 1 or 2, found ${String(authority)}`,
      );
    }
    const time = comparableTime(record.eventTime, `records[${index}].eventTime`);
    if (cutoff !== null && time > cutoff) continue;
    if (best < 0 || authority > bestAuthority || (authority === bestAuthority && time > bestTime)) {
      best = index;
      bestAuthority = authority;
      bestTime = time;
      tiedWith = -1;
    } else if (authority === bestAuthority && time === bestTime) {
      tiedWith = index;
    }
  }
  if (best < 0) return UNKNOWN;
  if (tiedWith >= 0) {
    throw new InvalidArgumentError(
      'records',
      `records[${best}] and records[${tiedWith}] both have key ${JSON.stringify(key)}, authority ${bestAuthority} and the same eventTime: precedence is undefined (the generator never produces such ties)`,
    );
  }
  const winner = records[best] as MemoryRecord;
  return { value: winner.value, source: winner.source, recordIndex: best };
}

function* indicesOfKey(records: readonly MemoryRecord[], key: string): Generator<number> {
  for (let index = 0; index < records.length; index++) {
    if ((records[index] as MemoryRecord).key === key) yield index;
  }
}

function cutoffArgument(cutoff: string): string {
  return comparableTime(cutoff, 'cutoff');
}

/**
 * The current answer for `key`: among its records, highest authority wins; within an authority
 * the later eventTime wins. No record: unknown (value and source null). This function defines the
 * truth of the current-state strata (r, s, u, i, f). O(records); for many keys use
 * {@link indexRecords}.
 *
 * @example
 * ```ts
 * resolveCurrent(
 *   [
 *     { key: 'k1', value: '00000001', source: 'a', eventTime: '2026-01-01T00:00:00.000Z', authority: 2 },
 *     { key: 'k1', value: '00000002', source: 'b', eventTime: '2026-02-01T00:00:00.000Z', authority: 1 },
 *   ],
 *   'k1',
 * ); // { value: '00000001', source: 'a', recordIndex: 0 }: authority beats recency
 * ```
 */
export function resolveCurrent(records: readonly MemoryRecord[], key: string): Resolution {
  return resolveIndices(records, indicesOfKey(records, key), key, null);
}

/**
 * The answer for `key` as of `cutoff`: first keep the records with eventTime <= cutoff, then
 * apply the precedence of `resolveCurrent`. No eligible record: unknown. Defines the truth
 * of the historical stratum t.
 *
 * @example
 * ```ts
 * resolveAsOf(records, 'k1', '2026-01-15T00:00:00.000Z'); // only records up to Jan 15 count
 * ```
 */
export function resolveAsOf(
  records: readonly MemoryRecord[],
  key: string,
  cutoff: string,
): Resolution {
  return resolveIndices(records, indicesOfKey(records, key), key, cutoffArgument(cutoff));
}

/** Records grouped by key once, so resolving many keys costs O(records) overall. */
export interface RecordIndex {
  /** Number of distinct keys. */
  readonly keyCount: number;
  /** Whether any record has this key. */
  has(key: string): boolean;
  /** Same as `resolveCurrent` on the indexed records. */
  resolveCurrent(key: string): Resolution;
  /** Same as {@link resolveAsOf} on the indexed records. */
  resolveAsOf(key: string, cutoff: string): Resolution;
  /** `resolveCurrent` when `asOf` is null, else {@link resolveAsOf}: an answer-key probe. */
  resolve(key: string, asOf: string | null): Resolution;
}

/**
 * Groups `records` by key in one pass (O(records)); each later question costs only the records of
 * its key. Record indices in the results refer to `records`.
 *
 * @example
 * ```ts
 * const index = indexRecords(world.records);
 * const truth = world.answerKey.map((entry) => index.resolve(entry.key, entry.asOf));
 * ```
 */
export function indexRecords(records: readonly MemoryRecord[]): RecordIndex {
  const byKey = new Map<string, number[]>();
  for (let index = 0; index < records.length; index++) {
    const key = (records[index] as MemoryRecord).key;
    const list = byKey.get(key);
    if (list === undefined) byKey.set(key, [index]);
    else list.push(index);
  }
  const resolve = (key: string, asOf: string | null): Resolution =>
    resolveIndices(records, byKey.get(key) ?? [], key, asOf === null ? null : cutoffArgument(asOf));
  return {
    keyCount: byKey.size,
    has: (key) => byKey.has(key),
    resolveCurrent: (key) => resolve(key, null),
    resolveAsOf: (key, cutoff) => resolve(key, cutoff),
    resolve,
  };
}
