import type { QuantileDefinition } from '@chi/stats';
import type { AnalysisContext } from './analysis-context';
import type { BootstrapRegistry, Estimand } from './bootstrap-registry';
import type { ComparisonRow } from './chart-data';

/** What the comparisons need beyond the analysis context. */
export interface ComparisonSettings {
  /** The named reference (`--compare-to`), or null for every pair in manifest order. */
  readonly referenceSystem: string | null;
  /** Whether a system is a scripted baseline (not a live model). */
  readonly scripted: (systemId: string) => boolean;
  /**
   * The checkpoint whose excess divergence is compared: the manifest's preregistered primary
   * checkpoint, the one the summary quotes.
   */
  readonly primaryCheckpoint: number;
}

/** Signs of a difference over the bootstrap replicates, counted as they are computed. */
export interface SignTally {
  below: number;
  zero: number;
  above: number;
}

/** The fixed part of a row (everything but the numbers). */
export type RowKey = Pick<
  ComparisonRow,
  'systemA' | 'systemB' | 'quantity' | 'label' | 'load' | 'tau' | 'checkpoint' | 'indicator'
>;

/** One registered comparison. */
export interface ComparisonEstimand {
  readonly key: RowKey;
  readonly worlds: readonly number[];
  readonly planned: number;
  readonly a: Estimand;
  readonly b: Estimand;
  readonly difference: Estimand;
  readonly signs: SignTally;
  /**
   * The row's values from the point estimates, when they are not the point estimates of `a` and
   * `b` themselves (e.g. EIMC, read from two curves, with statuses and censoring).
   */
  readonly values?: (point: (estimand: Estimand) => number | null) => RowValues;
}

/** A row's values, statuses and censoring. */
export type RowValues = Pick<
  ComparisonRow,
  'valueA' | 'valueB' | 'statusA' | 'statusB' | 'censoring'
>;

/** The comparisons' estimands, in definition order. */
export type ComparisonEstimands = readonly ComparisonEstimand[];

/**
 * Defines estimands once per (key, world set) and reuses them: on a run where every block is
 * complete, every pair uses the same worlds and a system's value is registered once.
 */
export class EstimandCache {
  readonly #known = new Map<string, Estimand>();
  constructor(readonly registry: BootstrapRegistry) {}

  /** The estimand registered under `name`, defined by `make` the first time. */
  once(name: string, make: () => Estimand): Estimand {
    const known = this.#known.get(name);
    if (known !== undefined) return known;
    const estimand = make();
    this.#known.set(name, estimand);
    return estimand;
  }

  mean(key: string, worlds: readonly number[], pick: (seed: number) => number): Estimand {
    const name = `c|${key}|${worlds.join(' ')}`;
    return this.once(name, () =>
      this.registry.define(name, this.registry.meanOf(new Set(worlds), pick)),
    );
  }
}

/** Registers A − B from two estimands (or an EIMC coder), tallying the replicates' signs. */
export function defineDifference(
  registry: BootstrapRegistry,
  name: string,
  value: (out: Float64Array) => number | null,
  signs: SignTally,
  quantile?: QuantileDefinition,
): Estimand {
  return registry.define(
    name,
    (_means, out, replicate) => {
      const d = value(out);
      if (d !== null && replicate >= 0) {
        if (d < 0) signs.below++;
        else if (d > 0) signs.above++;
        else signs.zero++;
      }
      return d;
    },
    quantile,
  );
}

export function plainDifference(a: Estimand, b: Estimand): (out: Float64Array) => number | null {
  return (out) => {
    const x = out[a] as number;
    const y = out[b] as number;
    return Number.isNaN(x) || Number.isNaN(y) ? null : x - y;
  };
}

/**
 * One experiment's paired comparisons, registered under its experiment ID
 * (`COMPARISON_QUANTITIES`): the estimands it defines for a pair of systems (none when either
 * system lacks its data), on the run's one bootstrap.
 */
export interface ComparisonQuantity {
  readonly experimentId: string;
  define(
    context: AnalysisContext,
    cache: EstimandCache,
    pair: [string, string],
    settings: ComparisonSettings,
  ): ComparisonEstimand[];
}
