import { InvalidArgumentError } from '@chi/spec';
import { quantileOfSorted } from './quantile.js';
import { assertLevel } from './validation.js';

/** Options of {@link simultaneousBands}. */
export interface SimultaneousBandsOptions {
  /** The point estimate of every cell of the family; null where the cell is undefined. */
  readonly estimates: readonly (number | null)[];
  /**
   * The bootstrap replicates, replicate-major: `replicates[r][c]` is cell `c` in replicate `r`
   * (null where undefined). Every replicate has one value per cell. Use the replicates of one
   * bootstrap (the same multisets for every cell) so the joint dependence is kept.
   */
  readonly replicates: readonly (readonly (number | null)[])[];
  /** Family-wise coverage, in (0, 1). Default 0.95. */
  readonly level?: number;
}

/** One cell's simultaneous band, or null when the cell is undefined or has no spread estimate. */
export interface SimultaneousBand {
  readonly lower: number;
  readonly upper: number;
  /** Bootstrap standard deviation of the cell (the studentizing scale). */
  readonly sd: number;
}

/** The family's simultaneous bands and the critical value they share. */
export interface SimultaneousBands {
  /** The `level` quantile of max over cells of |t|, t = (replicate - estimate) / sd. */
  readonly critical: number | null;
  /** Per cell, in the order of `estimates`. */
  readonly bands: readonly (SimultaneousBand | null)[];
  /** Cells that entered the maximum (defined, with at least two defined replicates and sd > 0). */
  readonly familySize: number;
  readonly level: number;
}

function cellSd(replicates: readonly (readonly (number | null)[])[], cell: number): number | null {
  let count = 0;
  let sum = 0;
  for (const row of replicates) {
    const value = row[cell];
    if (value === null || value === undefined) continue;
    count += 1;
    sum += value;
  }
  if (count < 2) return null;
  const mean = sum / count;
  let squares = 0;
  for (const row of replicates) {
    const value = row[cell];
    if (value === null || value === undefined) continue;
    squares += (value - mean) ** 2;
  }
  return Math.sqrt(squares / (count - 1));
}

function assertShape(options: SimultaneousBandsOptions): void {
  const width = options.estimates.length;
  options.replicates.forEach((row, index) => {
    if (row.length !== width)
      throw new InvalidArgumentError(
        `replicates[${index}]`,
        `expected ${width} values (one per estimate), found ${row.length}`,
      );
  });
  for (const [index, value] of options.estimates.entries())
    if (value !== null && !Number.isFinite(value))
      throw new InvalidArgumentError(`estimates[${index}]`, `expected a finite number or null`);
}

/**
 * Simultaneous (family-wise) bands over a family of bootstrapped cells by the max-|t| method:
 * each cell is studentized by its bootstrap standard deviation, t = (replicate - estimate) / sd;
 * the critical value q is the `level` quantile (type 7) over replicates of the largest |t| across
 * the family's cells; every cell's band is estimate +- q * sd. Because q is at least every single
 * cell's own |t| quantile, each band is at least as wide as that cell's pointwise studentized band,
 * and all bands cover their cells together with (bootstrap) probability `level`, not each alone:
 * "Pointwise intervals are not simultaneous guarantees across an entire curve" (seed
 * `000_b7bdc4d1fc1b710e.txt`).
 *
 * Cells that are undefined, have fewer than two defined replicates, or a zero spread do not enter
 * the maximum; a zero-spread cell's band is its estimate (the resampling cannot move it), an
 * undefined one's null. A replicate where a cell is undefined takes the maximum over its defined
 * cells.
 *
 * @throws InvalidArgumentError when a replicate's length differs from the estimates', an estimate is
 * not finite, or the level is outside (0, 1).
 *
 * @example
 * ```ts
 * simultaneousBands({ estimates: [0, 1], replicates: [[-1, 1], [1, 1], [0, 3], [0, -1]] });
 * ```
 */
export function simultaneousBands(options: SimultaneousBandsOptions): SimultaneousBands {
  const level = options.level ?? 0.95;
  assertLevel(level);
  assertShape(options);
  const { estimates, replicates } = options;
  const sds = estimates.map((estimate, cell) =>
    estimate === null ? null : cellSd(replicates, cell),
  );
  const family = sds.flatMap((sd, cell) => (sd !== null && sd > 0 ? [cell] : []));
  const maxima: number[] = [];
  for (const row of replicates) {
    let max = Number.NEGATIVE_INFINITY;
    for (const cell of family) {
      const value = row[cell];
      if (value === null || value === undefined) continue;
      const t = Math.abs(value - (estimates[cell] as number)) / (sds[cell] as number);
      if (t > max) max = t;
    }
    if (max > Number.NEGATIVE_INFINITY) maxima.push(max);
  }
  maxima.sort((a, b) => a - b);
  const critical = maxima.length === 0 ? null : quantileOfSorted(maxima, level);
  const bands = estimates.map((estimate, cell): SimultaneousBand | null => {
    const sd = sds[cell] ?? null;
    if (estimate === null || sd === null) return null;
    const half = sd === 0 || critical === null ? 0 : critical * sd;
    return { lower: estimate - half, upper: estimate + half, sd };
  });
  return { critical, bands, familySize: family.length, level };
}
