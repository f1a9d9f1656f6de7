import { eimcFromScores, qualityScore } from '@chi/scoring';
import { FACTOR_NAMES, type QualityFactors } from '@chi/spec';
import type { EimcStatus } from '@chi/spec/internal';
import { bootstrapPValue, holmAdjust } from '@chi/stats';
import type { AnalysisContext } from './analysis-context';
import { behaviorIn } from './behavior-analysis';
import type { BootstrapRegistry, BootstrapResults, Estimand } from './bootstrap-registry';
import type { ComparisonCensoring, ComparisonRow, Comparisons } from './chart-data';
import type { BehaviorIndicator } from './estimand-world-sets';
import { historyIn } from './history-analysis';
import { memoryIn } from './memory-analysis';
import {
  type BehaviorObservation,
  type HistoryObservation,
  isBehaviorObservation,
  isHistoryObservation,
  isMemoryObservation,
  type MemoryObservation,
  observationsOf,
} from './run-scores';
import { worldsInEvery } from './world-sets';

const BEHAVIOR_INDICATORS: readonly BehaviorIndicator[] = ['R', 'C', 'A', 'I', 'A-frame-change'];

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
interface SignTally {
  below: number;
  zero: number;
  above: number;
}

/** The fixed part of a row (everything but the numbers). */
type RowKey = Pick<
  ComparisonRow,
  'systemA' | 'systemB' | 'quantity' | 'label' | 'load' | 'tau' | 'checkpoint' | 'indicator'
>;

/** One registered comparison. */
interface ComparisonEstimand {
  readonly key: RowKey;
  readonly worlds: readonly number[];
  readonly planned: number;
  readonly a: Estimand;
  readonly b: Estimand;
  readonly difference: Estimand;
  readonly signs: SignTally;
  /** For EIMC: the two curves' Q_M estimands over the paired worlds and the tau. */
  readonly eimc: {
    readonly loads: readonly number[];
    readonly a: readonly Estimand[];
    readonly b: readonly Estimand[];
  } | null;
}

/** The comparisons' estimands, in definition order. */
export type ComparisonEstimands = readonly ComparisonEstimand[];

/** The pairs compared: (system, reference) for every other system, or every pair i < j. */
export function comparisonPairs(
  systems: readonly string[],
  referenceSystem: string | null,
): [string, string][] {
  if (referenceSystem !== null) {
    return systems.filter((id) => id !== referenceSystem).map((id) => [id, referenceSystem]);
  }
  return systems.flatMap((a, i) => systems.slice(i + 1).map((b): [string, string] => [a, b]));
}

/**
 * EIMC coded onto the grid so a censored status is a bound toward zero: no passing load at the
 * smallest tested load (the truth lies below it), a lower bound at the largest (its value).
 */
function codedEimc(loads: readonly number[], quality: readonly number[], tau: number): number {
  return eimcFromScores(loads, quality, tau) ?? (loads[0] as number);
}

function eimcStatus(loads: readonly number[], value: number | null): EimcStatus {
  return value === null
    ? 'no_passing_load'
    : value === loads[loads.length - 1]
      ? 'lower_bound'
      : 'capacity';
}

/** How a coded EIMC difference relates to the true one. */
export function eimcCensoring(a: EimcStatus, b: EimcStatus): ComparisonCensoring {
  if (a === 'capacity' && b === 'capacity') return 'none';
  if (a === b) return 'both_same_side';
  return 'toward_zero';
}

/**
 * Defines estimands once per (key, world set) and reuses them: on a run where every block is
 * complete, every pair uses the same worlds and a system's value is registered once.
 */
class EstimandCache {
  readonly #known = new Map<string, Estimand>();
  constructor(readonly registry: BootstrapRegistry) {}

  mean(key: string, worlds: readonly number[], pick: (seed: number) => number): Estimand {
    const name = `c|${key}|${worlds.join(' ')}`;
    const known = this.#known.get(name);
    if (known !== undefined) return known;
    const estimand = this.registry.define(name, this.registry.meanOf(new Set(worlds), pick));
    this.#known.set(name, estimand);
    return estimand;
  }

  quality(
    context: AnalysisContext,
    systemId: string,
    load: number,
    worlds: readonly number[],
  ): Estimand {
    const name = `c|Q|${systemId}|${load}|${worlds.join(' ')}`;
    const known = this.#known.get(name);
    if (known !== undefined) return known;
    const observation = (seed: number) =>
      memoryIn(context.world(seed), systemId, 'notebook', load) as MemoryObservation;
    const set = new Set(worlds);
    const readers = FACTOR_NAMES.map((f) =>
      this.registry.meanOf(set, (seed) => observation(seed).score.factors[f]),
    );
    const estimand = this.registry.define(name, (means) => {
      const values = readers.map((read) => read(means));
      if (values.some((v) => v === null)) return null;
      const factors = Object.fromEntries(
        FACTOR_NAMES.map((f, i) => [f, values[i] as number]),
      ) as unknown as QualityFactors;
      return qualityScore(factors, context.alphas);
    });
    this.#known.set(name, estimand);
    return estimand;
  }
}

/** Registers A − B from two estimands (or an EIMC coder), tallying the replicates' signs. */
function defineDifference(
  registry: BootstrapRegistry,
  name: string,
  value: (out: Float64Array) => number | null,
  signs: SignTally,
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
    // the EIMC difference is grid-valued: keep its range on attained values
    name.startsWith('c|d|eimc') ? 'inverted_cdf' : undefined,
  );
}

function plainDifference(a: Estimand, b: Estimand): (out: Float64Array) => number | null {
  return (out) => {
    const x = out[a] as number;
    const y = out[b] as number;
    return Number.isNaN(x) || Number.isNaN(y) ? null : x - y;
  };
}

function notebookLoads(context: AnalysisContext, systemId: string): number[] {
  const loads = new Set<number>();
  for (const o of observationsOf(context.scores, 'memory', isMemoryObservation))
    if (o.systemId === systemId && o.condition === 'notebook') loads.add(o.load);
  return [...loads].sort((x, y) => x - y);
}

/** EIMC A − B at one tau, each coded on the grid (a censored status is a bound toward zero). */
function defineEimcDifference(
  registry: BootstrapRegistry,
  pair: {
    readonly systemA: string;
    readonly systemB: string;
    readonly tau: number;
    readonly loads: readonly number[];
    readonly qa: readonly Estimand[];
    readonly qb: readonly Estimand[];
  },
  worlds: readonly number[],
  planned: number,
): ComparisonEstimand {
  const { systemA, systemB, tau, loads, qa, qb } = pair;
  const signs = { below: 0, zero: 0, above: 0 };
  const coded = (estimands: readonly Estimand[], out: Float64Array): number | null => {
    const q = estimands.map((e) => out[e] as number);
    return q.some(Number.isNaN) ? null : codedEimc(loads, q, tau);
  };
  return {
    key: {
      systemA,
      systemB,
      quantity: 'eimc',
      label: `EIMC at tau = ${tau}`,
      load: null,
      tau,
      checkpoint: null,
      indicator: null,
    },
    worlds,
    planned,
    a: qa[0] as Estimand,
    b: qb[0] as Estimand,
    difference: defineDifference(
      registry,
      `c|d|eimc|${systemA}|${systemB}|${tau}`,
      (out) => {
        const x = coded(qa, out);
        const y = coded(qb, out);
        return x === null || y === null ? null : x - y;
      },
      signs,
    ),
    signs,
    eimc: { loads, a: qa, b: qb },
  };
}

/** Q_M per shared load and EIMC per tau, over the worlds whose curves are complete in both. */
function defineMemory(
  context: AnalysisContext,
  cache: EstimandCache,
  [systemA, systemB]: [string, string],
): ComparisonEstimand[] {
  const loadsA = notebookLoads(context, systemA);
  const loadsB = notebookLoads(context, systemB);
  const loads = loadsA.filter((load) => loadsB.includes(load));
  if (loads.length === 0) return [];
  const worlds = worldsInEvery([
    context.sets.curve(systemA, 'notebook'),
    context.sets.curve(systemB, 'notebook'),
  ]);
  const qa = loads.map((load) => cache.quality(context, systemA, load, worlds));
  const qb = loads.map((load) => cache.quality(context, systemB, load, worlds));
  const base = { systemA, systemB, checkpoint: null, indicator: null };
  const rows: ComparisonEstimand[] = loads.map((load, k) => {
    const signs = { below: 0, zero: 0, above: 0 };
    const a = qa[k] as Estimand;
    const b = qb[k] as Estimand;
    return {
      key: { ...base, quantity: 'qualityScore', label: `Q_M at N = ${load}`, load, tau: null },
      worlds,
      planned: context.blockCounts('memory', load).planned,
      a,
      b,
      difference: defineDifference(
        cache.registry,
        `c|d|q|${systemA}|${systemB}|${load}`,
        plainDifference(a, b),
        signs,
      ),
      signs,
      eimc: null,
    };
  });
  // EIMC compares curves over one grid: only when both systems tested the same loads
  if (loads.length !== loadsA.length || loads.length !== loadsB.length) return rows;
  const planned = context.blockCounts('memory', loads[0] as number).planned;
  for (const tau of context.taus) {
    rows.push(
      defineEimcDifference(
        cache.registry,
        { systemA, systemB, tau, loads, qa, qb },
        worlds,
        planned,
      ),
    );
  }
  return rows;
}

function hasHistory(context: AnalysisContext, systemId: string): boolean {
  return observationsOf(context.scores, 'history', isHistoryObservation).some(
    (o) => o.systemId === systemId,
  );
}

function hasBehavior(context: AnalysisContext, systemId: string): boolean {
  return observationsOf(context.scores, 'behavior', isBehaviorObservation).some(
    (o) => o.systemId === systemId,
  );
}

/** Excess divergence D(A,B) − D(A,A2) at the compared checkpoint. */
function defineDivergence(
  context: AnalysisContext,
  cache: EstimandCache,
  [systemA, systemB]: [string, string],
  k: number,
): ComparisonEstimand[] {
  if (!hasHistory(context, systemA) || !hasHistory(context, systemB)) return [];
  const worlds = worldsInEvery([
    context.sets.distances(systemA, k),
    context.sets.distances(systemB, k),
  ]);
  const value = (systemId: string) =>
    cache.mean(`x|${systemId}|${k}`, worlds, (seed) => {
      const o = historyIn(context.world(seed), systemId) as HistoryObservation;
      const d = o.score.checkpoints[k]?.divergence;
      return (d?.differentHistories.value as number) - (d?.sameHistory.value as number);
    });
  const a = value(systemA);
  const b = value(systemB);
  const signs = { below: 0, zero: 0, above: 0 };
  return [
    {
      key: {
        systemA,
        systemB,
        quantity: 'excessDivergence',
        label: `excess divergence at checkpoint ${k}`,
        load: null,
        tau: null,
        checkpoint: k,
        indicator: null,
      },
      worlds,
      planned: context.blockCounts('history', null).planned,
      a,
      b,
      difference: defineDifference(
        cache.registry,
        `c|d|x|${systemA}|${systemB}`,
        plainDifference(a, b),
        signs,
      ),
      signs,
      eimc: null,
    },
  ];
}

function behaviorValue(o: BehaviorObservation, indicator: BehaviorIndicator): number {
  return (
    indicator === 'A-frame-change'
      ? o.score.frameInducedChange.rate.rate
      : o.score.axes[indicator].accuracy.rate
  ) as number;
}

/** Each behavior indicator over the worlds where both systems define it. */
function defineBehavior(
  context: AnalysisContext,
  cache: EstimandCache,
  [systemA, systemB]: [string, string],
): ComparisonEstimand[] {
  if (!hasBehavior(context, systemA) || !hasBehavior(context, systemB)) return [];
  return BEHAVIOR_INDICATORS.map((indicator) => {
    const worlds = worldsInEvery([
      context.sets.behavior(systemA, indicator),
      context.sets.behavior(systemB, indicator),
    ]);
    const value = (systemId: string) =>
      cache.mean(`b|${systemId}|${indicator}`, worlds, (seed) =>
        behaviorValue(behaviorIn(context.world(seed), systemId) as BehaviorObservation, indicator),
      );
    const a = value(systemA);
    const b = value(systemB);
    const signs = { below: 0, zero: 0, above: 0 };
    return {
      key: {
        systemA,
        systemB,
        quantity: 'behavior',
        label: `behavior ${indicator}`,
        load: null,
        tau: null,
        checkpoint: null,
        indicator,
      },
      worlds,
      planned: context.blockCounts('behavior', null).planned,
      a,
      b,
      difference: defineDifference(
        cache.registry,
        `c|d|b|${systemA}|${systemB}|${indicator}`,
        plainDifference(a, b),
        signs,
      ),
      signs,
      eimc: null,
    };
  });
}

/**
 * Registers every paired comparison on the run's one bootstrap (after every experiment's own
 * estimands, so theirs keep their order): per pair, Q_M per load and EIMC per tau over the worlds
 * whose notebook curves are complete in both systems, the excess divergence at the manifest's primary checkpoint over
 * the worlds with valid vectors in both, and each behavior indicator over the worlds defining it
 * in both. A and B are recomputed over that shared world set in every replicate, from the same
 * multiset of worlds.
 */
export function defineComparisons(
  context: AnalysisContext,
  registry: BootstrapRegistry,
  settings: ComparisonSettings,
): ComparisonEstimands {
  const cache = new EstimandCache(registry);
  return comparisonPairs(context.systems, settings.referenceSystem).flatMap((pair) => [
    ...defineMemory(context, cache, pair),
    ...defineDivergence(context, cache, pair, settings.primaryCheckpoint),
    ...defineBehavior(context, cache, pair),
  ]);
}

/** A row's values, statuses and censoring (EIMC from the two point curves). */
function pointValues(
  estimand: ComparisonEstimand,
  results: BootstrapResults,
  tau: number | null,
): Pick<ComparisonRow, 'valueA' | 'valueB' | 'statusA' | 'statusB' | 'censoring'> {
  const point = (e: Estimand) => results.get(e)?.estimate ?? null;
  if (estimand.eimc === null || tau === null) {
    return {
      valueA: point(estimand.a),
      valueB: point(estimand.b),
      statusA: null,
      statusB: null,
      censoring: null,
    };
  }
  const { loads } = estimand.eimc;
  const curve = (estimands: readonly Estimand[]) => estimands.map(point);
  const a = curve(estimand.eimc.a);
  const b = curve(estimand.eimc.b);
  if (a.some((q) => q === null) || b.some((q) => q === null)) {
    return { valueA: null, valueB: null, statusA: null, statusB: null, censoring: null };
  }
  const valueA = eimcFromScores(loads, a as number[], tau);
  const valueB = eimcFromScores(loads, b as number[], tau);
  const statusA = eimcStatus(loads, valueA);
  const statusB = eimcStatus(loads, valueB);
  return { valueA, valueB, statusA, statusB, censoring: eimcCensoring(statusA, statusB) };
}

/**
 * The comparison rows with their p-values and the Holm adjustment over every tested row. A row is
 * tested when its difference has a bootstrap interval and is not an EIMC comparison of two
 * statuses censored on the same side.
 */
export function comparisonResults(
  estimands: ComparisonEstimands,
  results: BootstrapResults,
  settings: ComparisonSettings & { readonly level: number },
): Comparisons {
  const rows = estimands.map((estimand) => {
    const worlds = estimand.worlds.length;
    const difference = results.interval(estimand.difference, {
      used: worlds,
      complete: worlds,
      planned: Math.max(estimand.planned, worlds),
    });
    const values = pointValues(estimand, results, estimand.key.tau);
    const tested = difference.intervalNote === null && values.censoring !== 'both_same_side';
    return {
      ...estimand.key,
      scripted: settings.scripted(estimand.key.systemA) || settings.scripted(estimand.key.systemB),
      ...values,
      difference,
      pValue: tested ? bootstrapPValue(estimand.signs) : null,
      worldSeeds: [...estimand.worlds],
    };
  });
  const adjusted = holmAdjust(rows.map((row) => row.pValue));
  const alpha = 1 - settings.level;
  return {
    referenceSystem: settings.referenceSystem,
    adjustment: 'holm',
    family: adjusted.filter((p) => p !== null).length,
    rows: rows.map((row, index) => {
      const p = adjusted[index] ?? null;
      return { ...row, adjustedPValue: p, differsFamilyWise: p === null ? null : p < alpha };
    }),
  };
}
