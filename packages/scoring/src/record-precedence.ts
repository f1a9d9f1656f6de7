import { InvalidArgumentError, type MemoryRecord, parseWith } from '@chi/spec';
import { MemoryRecordSchema } from '@chi/spec/internal';
import { isList } from './guards';

/**
 * Record precedence, implemented locally so that scoring does not depend on `@chi/worlds` (which
 * owns the generator's own `resolveCurrent` / `resolveAsOf`): among a key's eligible records the
 * highest authority wins, and within an authority the later eventTime wins. An as-of question
 * first keeps records with eventTime <= cutoff. Traces check that this agrees with the answer
 * key, so the two implementations cannot drift apart unnoticed.
 */

function subMillisecondDigits(time: string): string {
  const match = /\.(\d+)Z$/.exec(time);
  return match === null ? '' : (match[1] as string).slice(3);
}

/**
 * Compares two ISO-8601 UTC timestamps by the instant they name (negative when `a` is earlier),
 * exactly, whatever their fractional precision (`...:00Z` equals `...:00.000Z`).
 */
export function compareIsoTimes(a: string, b: string): number {
  const difference = Date.parse(a) - Date.parse(b);
  if (difference !== 0) return difference;
  const fa = subMillisecondDigits(a);
  const fb = subMillisecondDigits(b);
  const width = Math.max(fa.length, fb.length);
  const pa = fa.padEnd(width, '0');
  const pb = fb.padEnd(width, '0');
  return pa < pb ? -1 : pa > pb ? 1 : 0;
}

/** Orders records of one key by precedence: authority descending, then eventTime descending. */
export function compareByPrecedence(a: MemoryRecord, b: MemoryRecord): number {
  if (a.authority !== b.authority) return b.authority - a.authority;
  return compareIsoTimes(b.eventTime, a.eventTime);
}

/** A key's records split by a cutoff, each part in precedence order. */
export interface KeyPrecedence {
  /** Records with eventTime <= cutoff (all of them without a cutoff), winner first. */
  readonly eligible: readonly MemoryRecord[];
  /** Records dated after the cutoff (empty without a cutoff). */
  readonly excludedByCutoff: readonly MemoryRecord[];
  /** The first eligible record, or null when none is eligible (the answer is unknown). */
  readonly winner: MemoryRecord | null;
}

/** The records of a world indexed for precedence and value look-ups. */
export interface RecordIndex {
  readonly byKey: ReadonlyMap<string, readonly MemoryRecord[]>;
  /** Records by value, for finding which record a wrong answer came from. */
  readonly byValue: ReadonlyMap<string, readonly MemoryRecord[]>;
}

/**
 * Validates and indexes a world's records. Two records of one key with equal authority and equal
 * eventTime make precedence undefined (the generator never produces them), so they are rejected.
 */
export function indexRecords(records: readonly MemoryRecord[]): RecordIndex {
  if (!isList(records))
    throw new InvalidArgumentError('records', 'expected an array of memory records');
  const byKey = new Map<string, MemoryRecord[]>();
  const byValue = new Map<string, MemoryRecord[]>();
  records.forEach((raw, index) => {
    const record = parseWith(MemoryRecordSchema, raw, `memory record records[${index}]`);
    const sameKey = byKey.get(record.key) ?? [];
    const tie = sameKey.find(
      (other) =>
        other.authority === record.authority &&
        compareIsoTimes(other.eventTime, record.eventTime) === 0,
    );
    if (tie !== undefined) {
      throw new InvalidArgumentError(
        `records[${index}]`,
        `key ${JSON.stringify(record.key)} has two records with authority ${record.authority} at ${record.eventTime}: precedence is undefined`,
      );
    }
    sameKey.push(record);
    byKey.set(record.key, sameKey);
    const sameValue = byValue.get(record.value) ?? [];
    sameValue.push(record);
    byValue.set(record.value, sameValue);
  });
  for (const list of byKey.values()) list.sort(compareByPrecedence);
  return { byKey, byValue };
}

/**
 * The precedence view of one key, current (`asOf` null) or as of a cutoff.
 *
 * @example
 * ```ts
 * const index = indexRecords(world.records);
 * precedenceFor(index, 'k-17', '2026-03-01T00:00:00.000Z').winner?.value;
 * ```
 */
export function precedenceFor(index: RecordIndex, key: string, asOf: string | null): KeyPrecedence {
  const all = index.byKey.get(key) ?? [];
  if (asOf === null) return { eligible: all, excludedByCutoff: [], winner: all[0] ?? null };
  const eligible = all.filter((record) => compareIsoTimes(record.eventTime, asOf) <= 0);
  const excludedByCutoff = all.filter((record) => compareIsoTimes(record.eventTime, asOf) > 0);
  return { eligible, excludedByCutoff, winner: eligible[0] ?? null };
}
