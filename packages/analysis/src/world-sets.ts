/**
 * World sets: which worlds (clusters) an estimand rests on. The protocol scores "only complete
 * matched blocks for comparisons" and resamples "complete world clusters ... preserve model,
 * load, history and checkpoint pairing"; an estimand that combines cells therefore uses the worlds
 * complete in every cell it combines, for its estimate and every bootstrap replicate alike.
 */

/**
 * The worlds present in every given set, ascending. An empty list of sets gives no worlds (an
 * estimand that combines no cell rests on nothing).
 *
 * @example
 * ```ts
 * worldsInEvery([[11, 12, 14], [11, 13, 14]]); // [11, 14]
 * ```
 */
export function worldsInEvery(sets: readonly (readonly number[])[]): number[] {
  const [first, ...rest] = sets;
  if (first === undefined) return [];
  const others = rest.map((set) => new Set(set));
  return [...new Set(first)]
    .filter((seed) => others.every((s) => s.has(seed)))
    .sort((a, b) => a - b);
}

/**
 * The worlds of `items` that `isIn` accepts, ascending and without repeats: the complete worlds of
 * one cell, or of one estimand where its value is defined.
 *
 * @example
 * ```ts
 * worldsWhere([{ worldSeed: 12, ok: true }, { worldSeed: 11, ok: false }], (o) => o.ok); // [12]
 * ```
 */
export function worldsWhere<T extends { readonly worldSeed: number }>(
  items: readonly T[],
  isIn: (item: T) => boolean,
): number[] {
  return [...new Set(items.filter(isIn).map((item) => item.worldSeed))].sort((a, b) => a - b);
}

/**
 * The worlds one bootstrap replicate draws from: every planned world (the manifest's seeds, plus
 * any world an observation names), ascending. The universe does not depend on which blocks are
 * complete, so an incomplete block changes the draws of no estimand that does not use it.
 */
export function plannedWorlds(
  manifestSeeds: readonly number[],
  observed: readonly { readonly worldSeed: number }[],
): number[] {
  return [...new Set([...manifestSeeds, ...observed.map((o) => o.worldSeed)])].sort(
    (a, b) => a - b,
  );
}
