/**
 * Per-world columns for the fast path of `@chi/stats` (`weightedMeansBootstrap`): every estimand
 * the report shows is a function of means over a world set, and a mean over a set is a ratio of
 * two means over every planned world: `mean(value x 1[set]) / mean(1[set])`. One indicator column
 * per distinct world set and one value column per (set, value) turn the whole analysis into one
 * packed `worlds x columns` matrix that the bootstrap reweights without allocating.
 */

/** Columns over a fixed list of worlds (rows), built one column at a time. */
export class WorldColumns {
  private readonly columns: Float64Array[] = [];
  private readonly rows: ReadonlyMap<number, number>;
  private readonly indicators = new Map<string, number>();

  /** @param seeds the planned worlds, one row each, in this order. */
  constructor(private readonly seeds: readonly number[]) {
    this.rows = new Map(seeds.map((seed, row) => [seed, row]));
  }

  /** Number of columns so far. */
  get width(): number {
    return this.columns.length;
  }

  /** The indicator column of a world set (1 for its worlds, 0 elsewhere), shared by every value over it. */
  indicator(worlds: ReadonlySet<number>): number {
    const key = [...worlds].sort((a, b) => a - b).join(' ');
    const known = this.indicators.get(key);
    if (known !== undefined) return known;
    const column = this.add(worlds, () => 1);
    this.indicators.set(key, column);
    return column;
  }

  /** A column holding `pick(seed)` for the worlds of a set and 0 elsewhere. */
  values(worlds: ReadonlySet<number>, pick: (seed: number) => number): number {
    return this.add(worlds, pick);
  }

  /** Row-major `worlds x columns` data, as `weightedMeansBootstrap` takes it. */
  pack(): { readonly data: Float64Array; readonly clusters: number; readonly width: number } {
    const width = this.columns.length;
    const data = new Float64Array(this.seeds.length * width);
    this.columns.forEach((column, c) => {
      column.forEach((value, row) => {
        data[row * width + c] = value;
      });
    });
    return { data, clusters: this.seeds.length, width };
  }

  private add(worlds: ReadonlySet<number>, pick: (seed: number) => number): number {
    const column = new Float64Array(this.seeds.length);
    for (const seed of worlds) {
      const row = this.rows.get(seed);
      if (row === undefined) throw new RangeError(`world ${seed} is not a planned world`);
      column[row] = pick(seed);
    }
    this.columns.push(column);
    return this.columns.length - 1;
  }
}

/**
 * The mean over a world set from the column means of one (re)sample: the value column's mean
 * divided by the set's indicator mean; null when the sample holds no world of the set.
 *
 * @example
 * ```ts
 * // worlds 1, 2, 3 drawn once each; the set {1, 3} holds values 0.5 and 1
 * meanOverSet(Float64Array.of(1.5 / 3, 2 / 3), 0, 1); // 0.75
 * ```
 */
export function meanOverSet(
  means: Float64Array,
  valueColumn: number,
  indicatorColumn: number,
): number | null {
  const share = means[indicatorColumn] as number;
  return share === 0 ? null : (means[valueColumn] as number) / share;
}
