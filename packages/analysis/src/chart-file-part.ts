// Its own file so that each experiment's analysis can declare its place in `chart-data.json`
// without importing the adapter (chart-parts.ts), which imports every analysis.

/**
 * How one experiment's part sits in `chart-data.json`: the top-level fields it owns (the file's
 * published names) and its part when the run has none.
 */
export interface ChartFilePart {
  readonly experimentId: string;
  readonly fields: readonly string[];
  readonly empty: object;
}
