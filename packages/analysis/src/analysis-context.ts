import type { QualityAlphas } from '@chi/spec';
import type { Ratio } from '@chi/spec/internal';
import type { BootstrapRegistry, BootstrapResults } from './bootstrap-registry';
import type { BlockCounts, ChartData, MemoryCondition } from './chart-data';
import type { EstimandWorldSets } from './estimand-world-sets';
import {
  type BehaviorObservation,
  type ExperimentScores,
  type HistoryObservation,
  isBehaviorObservation,
  isHistoryObservation,
  isMemoryObservation,
  type MemoryObservation,
  type ObservationBase,
  observationsOf,
  type RunScores,
  type TraceLineBase,
} from './run-scores';

/**
 * What one planned world contributes to the analysis: its complete observations, by system (and
 * for memory by condition and load). The bootstrap resamples these, one world at a time.
 */
export interface WorldContribution {
  readonly seed: number;
  memory(systemId: string, condition: MemoryCondition, load: number): MemoryObservation | undefined;
  history(systemId: string): HistoryObservation | undefined;
  behavior(systemId: string): BehaviorObservation | undefined;
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
export interface ExperimentAnalysis<Estimands, Part extends Partial<ChartData>> {
  readonly id: 'memory' | 'history' | 'behavior';
  /** Registers its bootstrap estimands, in a fixed order. */
  estimands(context: AnalysisContext, registry: BootstrapRegistry): Estimands;
  /** Its part of the chart data. */
  results(context: AnalysisContext, estimands: Estimands, results: BootstrapResults): Part;
}

/** A ratio with its rate (null without a denominator). */
export function ratio(numerator: number, denominator: number): Ratio {
  return { numerator, denominator, rate: denominator === 0 ? null : numerator / denominator };
}

class PlannedWorld implements WorldContribution {
  readonly #memory = new Map<string, Map<MemoryCondition, Map<number, MemoryObservation>>>();
  readonly #history = new Map<string, HistoryObservation>();
  readonly #behavior = new Map<string, BehaviorObservation>();

  constructor(readonly seed: number) {}

  addMemory(o: MemoryObservation): void {
    const conditions = this.#memory.get(o.systemId) ?? new Map();
    const loads = conditions.get(o.condition) ?? new Map<number, MemoryObservation>();
    loads.set(o.load, o);
    conditions.set(o.condition, loads);
    this.#memory.set(o.systemId, conditions);
  }

  addHistory(o: HistoryObservation): void {
    this.#history.set(o.systemId, o);
  }

  addBehavior(o: BehaviorObservation): void {
    this.#behavior.set(o.systemId, o);
  }

  memory(
    systemId: string,
    condition: MemoryCondition,
    load: number,
  ): MemoryObservation | undefined {
    return this.#memory.get(systemId)?.get(condition)?.get(load);
  }

  history(systemId: string): HistoryObservation | undefined {
    return this.#history.get(systemId);
  }

  behavior(systemId: string): BehaviorObservation | undefined {
    return this.#behavior.get(systemId);
  }
}

/**
 * Every planned world with the complete observations it holds (incomplete blocks enter no
 * estimate); worlds without one are kept, with nothing in them, so the draws never depend on
 * which blocks happen to be complete.
 */
export function worldContributions(
  seeds: readonly number[],
  scores: RunScores,
): ReadonlyMap<number, WorldContribution> {
  const worlds = new Map(seeds.map((seed) => [seed, new PlannedWorld(seed)]));
  for (const o of observationsOf(scores, 'memory', isMemoryObservation))
    if (o.blockComplete) worlds.get(o.worldSeed)?.addMemory(o);
  for (const o of observationsOf(scores, 'history', isHistoryObservation))
    if (o.blockComplete) worlds.get(o.worldSeed)?.addHistory(o);
  for (const o of observationsOf(scores, 'behavior', isBehaviorObservation))
    if (o.blockComplete) worlds.get(o.worldSeed)?.addBehavior(o);
  return worlds;
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
