import type { QualityAlphas } from '@chi/spec';
import type { Ratio } from '@chi/spec/internal';
import type { BootstrapRegistry, BootstrapResults } from './bootstrap-registry';
import type { BlockCounts } from './chart-data';
import type { EstimandWorldSets } from './estimand-world-sets';
import type { ExperimentScores, ObservationBase, RunScores, TraceLineBase } from './run-scores';

/**
 * What one planned world contributes to the analysis: the complete observations of each
 * experiment in it. The bootstrap resamples these, one world at a time. The core keys them by
 * experiment ID only; an experiment's analysis finds its own cells in them (e.g. `memoryIn`).
 */
export interface WorldContribution {
  readonly seed: number;
  /** The complete observations of one experiment in this world (empty when it has none). */
  observations(experimentId: string): readonly ObservationBase[];
}

/** What every experiment's analysis reads: the run's scores, world sets and parameters. */
export interface AnalysisContext {
  /** System IDs in manifest order. */
  readonly systems: readonly string[];
  readonly scores: RunScores;
  /** World sets, fixed before resampling (docs/protocol.md#world-sets). */
  readonly sets: EstimandWorldSets;
  readonly alphas: QualityAlphas;
  readonly taus: readonly number[];
  readonly exploratoryBelowWorlds: number;
  /** A planned world's contribution (every seed the bootstrap draws has one). */
  world(seed: number): WorldContribution;
  /** Planned, complete, incomplete and missing blocks of an experiment (at one load, or all). */
  blockCounts(experiment: string, load: number | null): BlockCounts;
}

/**
 * One experiment's part of the analysis, in two steps around the run's one bootstrap: it
 * registers its estimands, then reads their results into its part of the chart data. Shaped to
 * become the `analyse` member of an experiment module.
 */
export interface ExperimentAnalysis<Estimands, Part extends object = object> {
  /** The experiment's ID: its part of the chart data is keyed by it (`chartPartOf`). */
  readonly id: string;
  /** Registers its bootstrap estimands, in a fixed order. */
  estimands(context: AnalysisContext, registry: BootstrapRegistry): Estimands;
  /** Its part of the chart data. */
  results(context: AnalysisContext, estimands: Estimands, results: BootstrapResults): Part;
}

/** A ratio with its rate (null without a denominator). */
export function ratio(numerator: number, denominator: number): Ratio {
  return { numerator, denominator, rate: denominator === 0 ? null : numerator / denominator };
}

/** A world's observations of one experiment, by seed (complete blocks only). */
type ObservationsBySeed = ReadonlyMap<number, readonly ObservationBase[]>;

/**
 * The complete observations of one experiment, by planned world (incomplete blocks enter no
 * estimate; a seed that is not planned is ignored).
 */
function observationsBySeed(
  seeds: ReadonlySet<number>,
  observations: readonly ObservationBase[],
): ObservationsBySeed {
  const bySeed = new Map<number, ObservationBase[]>();
  for (const o of observations) {
    if (!o.blockComplete || !seeds.has(o.worldSeed)) continue;
    const list = bySeed.get(o.worldSeed) ?? [];
    list.push(o);
    bySeed.set(o.worldSeed, list);
  }
  return bySeed;
}

const NO_OBSERVATIONS: readonly ObservationBase[] = [];

/**
 * Every planned world with the complete observations it holds, by experiment ID; worlds without
 * one are kept, with nothing in them, so the draws never depend on which blocks happen to be
 * complete. Each experiment's observations are indexed on first use.
 */
export function worldContributions(
  seeds: readonly number[],
  scores: RunScores,
): ReadonlyMap<number, WorldContribution> {
  const planned = new Set(seeds);
  const experiments = new Map<string, ObservationsBySeed>();
  const of = (experimentId: string): ObservationsBySeed => {
    let bySeed = experiments.get(experimentId);
    if (bySeed === undefined) {
      bySeed = observationsBySeed(planned, scores.modules.get(experimentId)?.observations ?? []);
      experiments.set(experimentId, bySeed);
    }
    return bySeed;
  };
  return new Map(
    seeds.map((seed) => [
      seed,
      {
        seed,
        observations: (experimentId: string) => of(experimentId).get(seed) ?? NO_OBSERVATIONS,
      },
    ]),
  );
}

/**
 * An index of one world's observations of an experiment, built once per observation list (the
 * list a {@link WorldContribution} gives is the same array until its world is released): what an
 * experiment's analysis uses to find its cells in a world.
 */
export function worldIndex<O extends ObservationBase>(
  key: (observation: O) => string,
): (observations: readonly ObservationBase[], cell: string) => O | undefined {
  const indexes = new WeakMap<readonly ObservationBase[], Map<string, O>>();
  return (observations, cell) => {
    let index = indexes.get(observations);
    if (index === undefined) {
      index = new Map((observations as readonly O[]).map((o) => [key(o), o]));
      indexes.set(observations, index);
    }
    return index.get(cell);
  };
}

/** One experiment's scores with its observation list read once and kept until released. */
class HeldExperimentScores implements ExperimentScores {
  readonly #scores: ExperimentScores;
  #observations: readonly ObservationBase[] | undefined;

  constructor(scores: ExperimentScores) {
    this.#scores = scores;
  }

  get scorer(): ExperimentScores['scorer'] {
    return this.#scores.scorer;
  }

  get observations(): readonly ObservationBase[] {
    this.#observations ??= this.#scores.observations;
    return this.#observations;
  }

  get traces(): readonly TraceLineBase[] {
    return this.#scores.traces;
  }

  get worlds(): ExperimentScores['worlds'] {
    return this.#scores.worlds;
  }

  get extras(): ExperimentScores['extras'] {
    return this.#scores.extras;
  }

  release(): void {
    this.#observations = undefined;
  }
}

/**
 * The run's scores as one phase of the analysis reads them: each experiment's observation list is
 * read from the scores (materialised, for the packed scores of `scoreRun`) once, on first use, and
 * kept until {@link HeldScores.release}. The analysis releases them before the bootstrap, so the
 * resampling runs without any observation live (only the packed world columns), and reads them
 * again for its results.
 */
export class HeldScores implements RunScores {
  readonly #scores: RunScores;
  readonly #modules: ReadonlyMap<string, HeldExperimentScores>;

  constructor(scores: RunScores) {
    this.#scores = scores;
    this.#modules = new Map(
      [...scores.modules].map(([id, experiment]) => [id, new HeldExperimentScores(experiment)]),
    );
  }

  get blocks(): RunScores['blocks'] {
    return this.#scores.blocks;
  }

  get modules(): RunScores['modules'] {
    return this.#modules;
  }

  /** Drops the lists read so far (the next read reads them again). */
  release(): void {
    for (const experiment of this.#modules.values()) experiment.release();
  }
}

/**
 * Every planned world's contribution, built from the held scores on first use and dropped with
 * {@link HeldWorlds.release} (it holds the complete observations of every world).
 */
export class HeldWorlds {
  readonly #seeds: readonly number[];
  readonly #scores: RunScores;
  #worlds: ReadonlyMap<number, WorldContribution> | undefined;

  constructor(seeds: readonly number[], scores: RunScores) {
    this.#seeds = seeds;
    this.#scores = scores;
  }

  /** A planned world's contribution. */
  world(seed: number): WorldContribution {
    this.#worlds ??= worldContributions(this.#seeds, this.#scores);
    return this.#worlds.get(seed) as WorldContribution;
  }

  /** Drops every contribution (the next {@link HeldWorlds.world} builds them again). */
  release(): void {
    this.#worlds = undefined;
  }
}
