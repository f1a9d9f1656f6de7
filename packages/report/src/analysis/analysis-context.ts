import type { QualityAlphas, Ratio } from '@chi/spec';
import type { BlockCounts, ChartData, MemoryCondition } from '../chart-data';
import type { EstimandWorldSets } from '../estimand-world-sets';
import type {
  BehaviorObservation,
  HistoryObservation,
  MemoryObservation,
  RunScores,
} from '../score-run';
import type { BootstrapRegistry, BootstrapResults } from './bootstrap-registry';

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
  for (const o of scores.memory) if (o.blockComplete) worlds.get(o.worldSeed)?.addMemory(o);
  for (const o of scores.history) if (o.blockComplete) worlds.get(o.worldSeed)?.addHistory(o);
  for (const o of scores.behavior) if (o.blockComplete) worlds.get(o.worldSeed)?.addBehavior(o);
  return worlds;
}
