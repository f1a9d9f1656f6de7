import { type ChisEntry, InvalidArgumentError } from '@chi/spec';
import { entryAtCheckpoint } from './trajectories';

/**
 * Picks one entry of a trajectory: the entry of a checkpoint (the last one recorded at it), or the
 * first entry with a condition.
 */
export type EntrySelector = { readonly checkpoint: number } | { readonly condition: string };

/** Describes a selector in reasons. @internal */
export function describeSelector(selector: EntrySelector): string {
  return 'checkpoint' in selector
    ? `checkpoint ${selector.checkpoint}`
    : `condition ${JSON.stringify(selector.condition)}`;
}

/**
 * The entry a selector picks from ordered entries, or undefined.
 * @internal
 */
export function selectEntry(
  ordered: readonly ChisEntry[],
  selector: EntrySelector,
  field: string,
): ChisEntry | undefined {
  if (typeof selector === 'object' && selector !== null) {
    if (
      'checkpoint' in selector &&
      Number.isInteger(selector.checkpoint) &&
      selector.checkpoint >= 0
    ) {
      return entryAtCheckpoint(ordered, selector.checkpoint);
    }
    if ('condition' in selector && typeof selector.condition === 'string') {
      return ordered.find((entry) => entry.condition === selector.condition);
    }
  }
  throw new InvalidArgumentError(
    field,
    `expected { checkpoint: <non-negative integer> } or { condition: <string> }, found ${JSON.stringify(selector)}`,
  );
}
