import type { FigureSource } from './render-svg';

/** A plotted value: one CSV cell. */
export type FigureCell = string | number | boolean | null;

/** One plotted row of a figure. */
export type FigureRow = Readonly<Record<string, FigureCell>>;

/** One figure of a release: its spec, the rows it plots (its chart data) and its caption. */
export interface FigureDefinition extends FigureSource {
  /** Path of the SVG inside the release, e.g. `figures/memory-capacity.svg`. */
  readonly svgPath: string;
  /** One-paragraph caption: what is plotted, units, denominators, missingness, caveats. */
  readonly caption: string;
  /** CSV header: the keys of every row, in order. */
  readonly columns: readonly string[];
  /** Exactly the values the figure plots. */
  readonly rows: readonly FigureRow[];
}

/** A piece of a vega-lite spec (a channel, a layer, a facet); vega-lite checks the whole spec. */
export type SpecPart = Record<string, unknown>;
