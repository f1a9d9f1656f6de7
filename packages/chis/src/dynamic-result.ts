import type { ChisEntry } from '@chi/spec';
import { type EntryRef, entryRef } from './trajectories';

/**
 * What every dynamic returns: its value, or null with the reason it is undefined, and the entries
 * it was computed from (or, when null, the entries it examined).
 */
export interface DynamicResult {
  /** The value, or null when the dynamic is undefined for these entries. */
  readonly value: number | null;
  /** Why `value` is null; null whenever `value` is a number. */
  readonly reason: string | null;
  /** The entries used, in trajectory order. */
  readonly used: readonly EntryRef[];
}

/**
 * References of the entries in `used`, in trajectory order and without repeats.
 * @internal
 */
export function usedRefs(ordered: readonly ChisEntry[], used: ReadonlySet<ChisEntry>): EntryRef[] {
  return ordered.filter((entry) => used.has(entry)).map(entryRef);
}
