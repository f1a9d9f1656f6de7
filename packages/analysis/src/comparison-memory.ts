import { eimcFromScores, qualityScore } from '@chi/scoring';
import { FACTOR_NAMES, type QualityFactors } from '@chi/spec';
import type { EimcStatus } from '@chi/spec/internal';
import type { AnalysisContext } from './analysis-context';
import type { BootstrapRegistry, Estimand } from './bootstrap-registry';
import type { ComparisonCensoring } from './chart-data';
import {
  type ComparisonEstimand,
  type ComparisonQuantity,
  defineDifference,
  type EstimandCache,
  plainDifference,
  type RowValues,
} from './comparison-estimands';
import { memoryIn } from './memory-analysis';
import { isMemoryObservation, type MemoryObservation, observationsOf } from './run-scores';
import { worldsInEvery } from './world-sets';

const EXPERIMENT = 'memory';

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

/** Q_M of a system's notebook curve at one load over `worlds`, from its world-mean factors. */
function qualityEstimand(
  context: AnalysisContext,
  cache: EstimandCache,
  systemId: string,
  load: number,
  worlds: readonly number[],
): Estimand {
  const name = `c|Q|${systemId}|${load}|${worlds.join(' ')}`;
  return cache.once(name, () => {
    const observation = (seed: number) =>
      memoryIn(context.world(seed), systemId, 'notebook', load) as MemoryObservation;
    const set = new Set(worlds);
    const readers = FACTOR_NAMES.map((f) =>
      cache.registry.meanOf(set, (seed) => observation(seed).score.factors[f]),
    );
    return cache.registry.define(name, (means) => {
      const values = readers.map((read) => read(means));
      if (values.some((v) => v === null)) return null;
      const factors = Object.fromEntries(
        FACTOR_NAMES.map((f, i) => [f, values[i] as number]),
      ) as unknown as QualityFactors;
      return qualityScore(factors, context.alphas);
    });
  });
}

function notebookLoads(context: AnalysisContext, systemId: string): number[] {
  const loads = new Set<number>();
  for (const o of observationsOf(context.scores, EXPERIMENT, isMemoryObservation))
    if (o.systemId === systemId && o.condition === 'notebook') loads.add(o.load);
  return [...loads].sort((x, y) => x - y);
}

/** The EIMC row's values: each curve's EIMC, its status and the pair's censoring. */
function eimcValues(
  loads: readonly number[],
  qa: readonly Estimand[],
  qb: readonly Estimand[],
  tau: number,
): (point: (estimand: Estimand) => number | null) => RowValues {
  return (point) => {
    const a = qa.map(point);
    const b = qb.map(point);
    if (a.some((q) => q === null) || b.some((q) => q === null)) {
      return { valueA: null, valueB: null, statusA: null, statusB: null, censoring: null };
    }
    const valueA = eimcFromScores(loads, a as number[], tau);
    const valueB = eimcFromScores(loads, b as number[], tau);
    const statusA = eimcStatus(loads, valueA);
    const statusB = eimcStatus(loads, valueB);
    return { valueA, valueB, statusA, statusB, censoring: eimcCensoring(statusA, statusB) };
  };
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
      // the EIMC difference is grid-valued: keep its range on attained values
      'inverted_cdf',
    ),
    signs,
    values: eimcValues(loads, qa, qb, tau),
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
  const qa = loads.map((load) => qualityEstimand(context, cache, systemA, load, worlds));
  const qb = loads.map((load) => qualityEstimand(context, cache, systemB, load, worlds));
  const base = { systemA, systemB, checkpoint: null, indicator: null };
  const rows: ComparisonEstimand[] = loads.map((load, k) => {
    const signs = { below: 0, zero: 0, above: 0 };
    const a = qa[k] as Estimand;
    const b = qb[k] as Estimand;
    return {
      key: { ...base, quantity: 'qualityScore', label: `Q_M at N = ${load}`, load, tau: null },
      worlds,
      planned: context.blockCounts(EXPERIMENT, load).planned,
      a,
      b,
      difference: defineDifference(
        cache.registry,
        `c|d|q|${systemA}|${systemB}|${load}`,
        plainDifference(a, b),
        signs,
      ),
      signs,
    };
  });
  // EIMC compares curves over one grid: only when both systems tested the same loads
  if (loads.length !== loadsA.length || loads.length !== loadsB.length) return rows;
  const planned = context.blockCounts(EXPERIMENT, loads[0] as number).planned;
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

/** The memory experiment's comparisons: Q_M per shared load and EIMC per tau. */
export const memoryComparison: ComparisonQuantity = {
  experimentId: EXPERIMENT,
  define: (context, cache, pair) => defineMemory(context, cache, pair),
};
