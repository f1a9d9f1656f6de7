import { eimcFromScores, eimcSensitivity, qualityScore } from '@chi/scoring';
import { FACTOR_NAMES, type QualityFactors, type Stratum } from '@chi/spec';
import type { Ratio } from '@chi/spec/internal';
import {
  type AnalysisContext,
  type ExperimentAnalysis,
  ratio,
  type WorldContribution,
  worldIndex,
} from './analysis-context';
import type {
  BootstrapRegistry,
  BootstrapResults,
  Estimand,
  MeanReader,
  WorldCounts,
} from './bootstrap-registry';
import {
  type EimcEntry,
  type IntervalEstimate,
  isControlCondition,
  type MemoryCondition,
  type MemoryPoint,
  type TaxonomyCount,
} from './chart-data';
import type { ChartFilePart } from './chart-file-part';
import { memoryExtrasOf } from './memory-extras';
import { memoryTaxonomy } from './memory-taxonomy';
import {
  isMemoryObservation,
  isMemoryTraceLine,
  type MemoryObservation,
  observationsOf,
  type RunScores,
  traceLinesOf,
} from './run-scores';

/** The order memory conditions are listed in. */
export const CONDITION_ORDER: Record<MemoryCondition, number> = {
  notebook: 0,
  blank: 1,
  oracle: 2,
  replay: 3,
};

type FactorName = (typeof FACTOR_NAMES)[number];

/** One cell of the capacity curves: a system under a condition at a load. */
interface MemoryCell {
  readonly systemId: string;
  readonly condition: MemoryCondition;
  readonly load: number;
}

/** The estimands of one memory cell. */
interface MemoryCellEstimands {
  readonly cell: MemoryCell;
  /** Q_M of the mean factors over the curve's world set. */
  readonly qualityScore: Estimand;
  /** Mean of the per-world Q_M over the worlds where it is defined. */
  readonly withinWorld: Estimand;
  readonly factors: Readonly<Record<FactorName, Estimand>>;
}

/** The EIMC estimand of one system at one tau, and its replicates with no passing load. */
interface EimcEstimand {
  readonly systemId: string;
  readonly tau: number;
  readonly estimand: Estimand;
  readonly noPassing: { replicates: number };
}

/** The memory experiment's estimands, in definition order. */
export interface MemoryEstimands {
  readonly cells: readonly MemoryCellEstimands[];
  readonly eimc: readonly EimcEstimand[];
}

/** The memory experiment's part of the chart data. */
export interface MemoryPart {
  readonly memory: MemoryPoint[];
  readonly eimc: EimcEntry[];
  readonly taxonomy: TaxonomyCount[];
}

/** Where the memory part sits in `chart-data.json` (see `CHART_FILE_PARTS`). */
export const memoryChartFile: ChartFilePart = {
  experimentId: 'memory',
  fields: ['memory', 'eimc', 'taxonomy'] satisfies (keyof MemoryPart)[],
  empty: { memory: [], eimc: [], taxonomy: [] } satisfies MemoryPart,
};

/** Every memory cell with an observation, by system (manifest order), condition, then load. */
function memoryCells(scores: RunScores, systems: readonly string[]): MemoryCell[] {
  const cells: MemoryCell[] = [];
  const seen = new Set<string>();
  for (const o of observationsOf(scores, 'memory', isMemoryObservation)) {
    const key = JSON.stringify([o.systemId, o.condition, o.load]);
    if (seen.has(key)) continue;
    seen.add(key);
    cells.push({ systemId: o.systemId, condition: o.condition, load: o.load });
  }
  return cells.sort(
    (a, b) =>
      systems.indexOf(a.systemId) - systems.indexOf(b.systemId) ||
      CONDITION_ORDER[a.condition] - CONDITION_ORDER[b.condition] ||
      a.load - b.load,
  );
}

const memoryCell = worldIndex<MemoryObservation>((o) => `${o.systemId}|${o.condition}|${o.load}`);

/** A world's complete memory observation of one system, condition and load. */
export function memoryIn(
  world: WorldContribution,
  systemId: string,
  condition: MemoryCondition,
  load: number,
): MemoryObservation | undefined {
  return memoryCell(world.observations(memoryAnalysis.id), `${systemId}|${condition}|${load}`);
}

function cellName(cell: MemoryCell): string {
  return `m|${cell.systemId}|${cell.condition}|${cell.load}`;
}

function defineCell(
  context: AnalysisContext,
  registry: BootstrapRegistry,
  cell: MemoryCell,
): MemoryCellEstimands {
  const { systemId, condition, load } = cell;
  const curve = new Set(context.sets.curve(systemId, condition));
  const observation = (seed: number) =>
    memoryIn(context.world(seed), systemId, condition, load) as MemoryObservation;
  const factor = Object.fromEntries(
    FACTOR_NAMES.map((name) => [
      name,
      registry.meanOf(curve, (seed) => observation(seed).score.factors[name]),
    ]),
  ) as Record<FactorName, MeanReader>;
  const factorsAt = (means: Float64Array): QualityFactors | null => {
    const r = factor.r(means);
    if (r === null) return null;
    return {
      r,
      t: factor.t(means) as number,
      s: factor.s(means) as number,
      u: factor.u(means) as number,
      i: factor.i(means) as number,
      oneMinusF: factor.oneMinusF(means) as number,
    };
  };
  const name = cellName(cell);
  const quality = registry.define(`${name}|Q`, (means) => {
    const factors = factorsAt(means);
    return factors === null ? null : qualityScore(factors, context.alphas);
  });
  const within = registry.meanOf(
    new Set(context.sets.withinWorld(systemId, condition, load)),
    (seed) => observation(seed).score.qualityScore as number,
  );
  const withinWorld = registry.define(`${name}|W`, within);
  const factors = Object.fromEntries(
    FACTOR_NAMES.map((f) => [f, registry.define(`${name}|${f}`, factor[f])]),
  ) as Record<FactorName, Estimand>;
  return { cell, qualityScore: quality, withinWorld, factors };
}

/** EIMC at each tau from the notebook curve's Q_M values of the same replicate. */
function defineEimc(
  context: AnalysisContext,
  registry: BootstrapRegistry,
  cells: readonly MemoryCellEstimands[],
): EimcEstimand[] {
  const out: EimcEstimand[] = [];
  for (const systemId of context.systems) {
    const curve = cells.filter(
      (c) => c.cell.systemId === systemId && c.cell.condition === 'notebook',
    );
    if (curve.length === 0) continue;
    const loads = curve.map((c) => c.cell.load);
    const quality = curve.map((c) => c.qualityScore as number);
    for (const tau of context.taus) {
      const noPassing = { replicates: 0 };
      const estimand = registry.define(
        `e|${systemId}|${tau}`,
        (_means, out, replicate) => {
          const q = quality.map((index) => out[index] as number);
          if (q.some(Number.isNaN)) return null;
          const value = eimcFromScores(loads, q, tau);
          if (value === null && replicate >= 0) noPassing.replicates++;
          return value;
        },
        'inverted_cdf',
      );
      out.push({ systemId, tau, estimand, noPassing });
    }
  }
  return out;
}

function pooledRatio(
  observations: readonly MemoryObservation[],
  pick: (o: MemoryObservation) => Ratio,
): Ratio {
  return ratio(
    observations.reduce((s, o) => s + pick(o).numerator, 0),
    observations.reduce((s, o) => s + pick(o).denominator, 0),
  );
}

// long-function: one MemoryPoint record; most of its lines are the record's field list (factors and strata by name)
function memoryPoint(
  context: AnalysisContext,
  results: BootstrapResults,
  estimands: MemoryCellEstimands,
): MemoryPoint {
  const { cell } = estimands;
  const { systemId, condition, load } = cell;
  const worldSeeds = [...context.sets.curve(systemId, condition)];
  const curve = new Set(worldSeeds);
  const observations = observationsOf(context.scores, 'memory', isMemoryObservation).filter(
    (o) =>
      o.blockComplete &&
      curve.has(o.worldSeed) &&
      o.systemId === systemId &&
      o.condition === condition &&
      o.load === load,
  );
  const blocks = context.blockCounts(isControlCondition(condition) ? 'controls' : 'memory', load);
  const counts = (used: number): WorldCounts => ({
    used,
    complete: context.sets.memoryCell(systemId, condition, load).length,
    planned: blocks.planned,
  });
  const worlds = counts(worldSeeds.length);
  const factor = (name: FactorName) => results.interval(estimands.factors[name], worlds);
  const pooled = (stratum: Exclude<Stratum, 'f'>) =>
    pooledRatio(observations, (o) => o.score.strata[stratum]);
  return {
    systemId,
    condition,
    load,
    blocks,
    worldSeeds,
    qualityScore: results.interval(estimands.qualityScore, worlds),
    meanWithinWorldQualityScore: results.interval(
      estimands.withinWorld,
      counts(context.sets.withinWorld(systemId, condition, load).length),
    ),
    factors: {
      r: factor('r'),
      t: factor('t'),
      s: factor('s'),
      u: factor('u'),
      i: factor('i'),
      oneMinusF: factor('oneMinusF'),
    },
    strata: {
      r: pooled('r'),
      t: pooled('t'),
      s: pooled('s'),
      u: pooled('u'),
      i: pooled('i'),
      f: pooledRatio(observations, (o) => o.score.lures.f),
    },
    unsupportedAffirmativeLures: pooledRatio(
      observations,
      (o) => o.score.lures.falseAffirmativeRate,
    ),
    invalidLures: pooledRatio(observations, (o) => o.score.lures.invalidLureRate),
    exploratory: worldSeeds.length < context.exploratoryBelowWorlds,
  };
}

function factorsOf(point: MemoryPoint): QualityFactors {
  const v = (e: IntervalEstimate) => e.estimate ?? 0;
  return {
    r: v(point.factors.r),
    t: v(point.factors.t),
    s: v(point.factors.s),
    u: v(point.factors.u),
    i: v(point.factors.i),
    oneMinusF: v(point.factors.oneMinusF),
  };
}

function eimcEntries(
  context: AnalysisContext,
  results: BootstrapResults,
  memory: readonly MemoryPoint[],
  estimands: readonly EimcEstimand[],
): EimcEntry[] {
  const eimc: EimcEntry[] = [];
  for (const systemId of context.systems) {
    const points = memory.filter((p) => p.systemId === systemId && p.condition === 'notebook');
    if (points.length === 0 || points.some((p) => p.qualityScore.estimate === null)) continue;
    const worldSeeds = [...context.sets.curve(systemId, 'notebook')];
    const curve = points.map((p) => ({
      load: p.load,
      qualityScore: p.qualityScore.estimate as number,
      factors: factorsOf(p),
      worlds: p.qualityScore.worlds,
    }));
    for (const result of eimcSensitivity(curve, context.taus)) {
      const estimand = estimands.find((e) => e.systemId === systemId && e.tau === result.tau);
      const e = estimand === undefined ? undefined : results.get(estimand.estimand);
      const interval = e?.interval === null || e === undefined || worldSeeds.length < 2;
      eimc.push({
        systemId,
        tau: result.tau,
        value: result.value,
        status: result.status,
        testedLoads: result.testedLoads,
        passingLoads: result.passingLoads,
        nonmonotone: result.nonmonotone,
        sustainedPrefix: result.sustainedPrefix,
        worlds: worldSeeds.length,
        worldSeeds,
        lower: interval ? null : (e.interval?.lower ?? null),
        upper: interval ? null : (e.interval?.upper ?? null),
        noPassingReplicates: estimand?.noPassing.replicates ?? 0,
        resamples: e?.resamples ?? 0,
      });
    }
  }
  return eimc;
}

/** The failure taxonomy: folded while scoring when the scores carry it, else from their traces. */
function taxonomy(scores: RunScores, systems: readonly string[]): TaxonomyCount[] {
  return (
    memoryExtrasOf(scores).taxonomy?.rows(systems) ??
    memoryTaxonomy(traceLinesOf(scores, 'memory', isMemoryTraceLine), systems)
  );
}

/**
 * The memory experiment's analysis: capacity curves (Q_M of the mean factors, the mean
 * within-world Q_M, each factor) per system, condition and load; EIMC at each tau with its
 * bootstrap interval; pooled strata and lure rates; the failure taxonomy.
 */
export const memoryAnalysis: ExperimentAnalysis<MemoryEstimands, MemoryPart> = {
  id: 'memory',
  estimands(context, registry) {
    const cells = memoryCells(context.scores, context.systems).map((cell) =>
      defineCell(context, registry, cell),
    );
    return { cells, eimc: defineEimc(context, registry, cells) };
  },
  results(context, estimands, results) {
    const memory = estimands.cells.map((cell) => memoryPoint(context, results, cell));
    return {
      memory,
      eimc: eimcEntries(context, results, memory, estimands.eimc),
      taxonomy: taxonomy(context.scores, context.systems),
    };
  },
};
