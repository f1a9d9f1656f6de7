/** The pilot's memory grid (protocol 2026-09 v1): N target keys per world. */
export const PILOT_LOADS = [32, 64, 128, 256] as const;

/** The v0.1 specification's suggested panel of loads (a different panel from the pilot's). */
export const V01_LOADS = [100, 300, 1000, 3000, 10000] as const;

/** Probes per stratum in the pilot (six strata, 48 probes per world and load). */
export const DEFAULT_PROBES_PER_STRATUM = 8;

/**
 * The largest load `generateMemoryWorld` accepts. A world holds 2.5 x load records in memory
 * (about 0.7 GB of live objects at this limit); larger loads are refused with a clear error
 * instead of failing deep inside the JavaScript heap.
 */
export const MAX_MEMORY_LOAD = 2_000_000;

/**
 * The smallest load whose world fills every stratum with `probesPerStratum` distinct keys:
 * `4 * probesPerStratum`. Strata u and i need that many updated and conflicted keys
 * (floor(load / 4) each), and r and s need twice that many plain targets.
 *
 * @example
 * ```ts
 * minimumMemoryLoad(8); // 32, the smallest pilot load
 * ```
 */
export function minimumMemoryLoad(probesPerStratum: number = DEFAULT_PROBES_PER_STRATUM): number {
  return 4 * probesPerStratum;
}
