import {
  type BootstrapEstimate,
  type QuantileDefinition,
  weightedMeansBootstrap,
} from '@chi/stats';
import type { IntervalEstimate } from './chart-data';
import { meanOverSet, WorldColumns } from './world-columns';

/**
 * A handle on one bootstrapped estimand, returned by {@link BootstrapRegistry.define}: its
 * position in the statistic's output. Results are read with it, never by name.
 */
export type Estimand = number & { readonly __estimand: true };

/**
 * Computes one estimand from the column means of one sample. `out` holds the estimands defined
 * before this one, already computed for the same sample (so an EIMC reads the Q_M values of its
 * own replicate); `replicate` is -1 for the original sample, then the replicate index.
 */
export type EstimandOutput = (
  means: Float64Array,
  out: Float64Array,
  replicate: number,
) => number | null;

/** Reads the mean over a world set of one value per world from the column means. */
export type MeanReader = (means: Float64Array) => number | null;

/** How many worlds an estimate uses, are complete in its cell, and were planned for it. */
export interface WorldCounts {
  readonly used: number;
  readonly complete: number;
  readonly planned: number;
}

/** The analysis parameters the bootstrap runs with (from the manifest). */
export interface BootstrapSettings {
  readonly seed: number;
  readonly resamples: number;
  readonly level: number;
}

/**
 * Collects the estimands of a run's one cluster bootstrap over worlds. Every displayed aggregate
 * is a function of means over world sets, so the whole analysis is one packed worlds x columns
 * matrix for the fast path of `@chi/stats` (identical draws to `clusterBootstrap`): a mean over a
 * set is mean(value x 1[set]) / mean(1[set]). Estimands are computed in the order they are
 * defined.
 */
export class BootstrapRegistry {
  readonly #columns: WorldColumns;
  readonly #clusters: number;
  readonly #names: string[] = [];
  readonly #outputs: EstimandOutput[] = [];
  readonly #quantiles = new Map<string, QuantileDefinition>();

  /** @param seeds - every planned world, in seed order (the clusters). */
  constructor(seeds: readonly number[]) {
    this.#columns = new WorldColumns(seeds);
    this.#clusters = seeds.length;
  }

  /** Registers the mean over a world set of one value per world; returns a reader of it. */
  meanOf(worlds: ReadonlySet<number>, pick: (seed: number) => number): MeanReader {
    const indicator = this.#columns.indicator(worlds);
    const value = this.#columns.values(worlds, pick);
    return (means) => meanOverSet(means, value, indicator);
  }

  /**
   * Defines an estimand. `name` is unique and only names it in errors of `@chi/stats`; its
   * percentile interval uses `quantile` (type 7 by default).
   */
  define(name: string, output: EstimandOutput, quantile?: QuantileDefinition): Estimand {
    this.#names.push(name);
    this.#outputs.push(output);
    if (quantile !== undefined) this.#quantiles.set(name, quantile);
    return (this.#names.length - 1) as Estimand;
  }

  /** Runs the bootstrap over every defined estimand (nothing to run: every estimate undefined). */
  run(settings: BootstrapSettings): BootstrapResults {
    const names = this.#names;
    const outputs = this.#outputs;
    if (this.#clusters === 0 || names.length === 0 || this.#columns.width === 0)
      return new BootstrapResults(names, {});
    const estimates = weightedMeansBootstrap({
      ...this.#columns.pack(),
      names,
      statistic: (means, out, replicate) => {
        for (let index = 0; index < outputs.length; index++) {
          const value = (outputs[index] as EstimandOutput)(means, out, replicate);
          out[index] = value === null ? Number.NaN : value;
        }
      },
      seed: settings.seed,
      resamples: settings.resamples,
      level: settings.level,
      quantile: Object.fromEntries(
        names
          .filter((name) => this.#quantiles.has(name))
          .map((name) => [name, this.#quantiles.get(name) as QuantileDefinition]),
      ),
    });
    return new BootstrapResults(names, estimates);
  }
}

/** The bootstrap's estimates, read by {@link Estimand}. */
export class BootstrapResults {
  readonly #names: readonly string[];
  readonly #estimates: Readonly<Record<string, BootstrapEstimate>>;

  constructor(names: readonly string[], estimates: Readonly<Record<string, BootstrapEstimate>>) {
    this.#names = names;
    this.#estimates = estimates;
  }

  /** The estimate, or undefined when the bootstrap did not run. */
  get(estimand: Estimand): BootstrapEstimate | undefined {
    return this.#estimates[this.#names[estimand] as string];
  }

  /** An estimate with its interval and world set (used / complete in the cell / planned). */
  interval(estimand: Estimand, counts: WorldCounts): IntervalEstimate {
    const e = this.get(estimand);
    const worldFields = {
      worlds: counts.used,
      completeWorlds: counts.complete,
      plannedWorlds: counts.planned,
    };
    if (e === undefined || e.estimate === null) {
      return {
        estimate: null,
        lower: null,
        upper: null,
        intervalNote: 'undefined_estimate',
        ...worldFields,
        undefinedReplicates: e?.undefinedReplicates ?? 0,
      };
    }
    if (counts.used < 2) {
      return {
        estimate: e.estimate,
        lower: null,
        upper: null,
        intervalNote: 'fewer_than_two_complete_worlds',
        ...worldFields,
        undefinedReplicates: e.undefinedReplicates,
      };
    }
    if (e.interval === null) {
      return {
        estimate: e.estimate,
        lower: null,
        upper: null,
        intervalNote:
          e.intervalOmittedReason === 'fewer_than_two_clusters'
            ? 'fewer_than_two_complete_worlds'
            : 'no_defined_replicates',
        ...worldFields,
        undefinedReplicates: e.undefinedReplicates,
      };
    }
    return {
      estimate: e.estimate,
      lower: e.interval.lower,
      upper: e.interval.upper,
      intervalNote: null,
      ...worldFields,
      undefinedReplicates: e.undefinedReplicates,
    };
  }
}
