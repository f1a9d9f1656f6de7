import {
  EQUAL_ALPHAS,
  eimcFromScores,
  eimcSensitivity,
  NO_CALIBRATION_REASON,
  qualityScore,
} from '@chi/scoring';
import {
  type CheckpointAccuracy,
  type ExperienceDivergence,
  FACTOR_NAMES,
  HISTORY_IDS,
  type HistoryId,
  type QualityAlphas,
  type QualityFactors,
  type Ratio,
  STRATA,
  type Stratum,
} from '@chi/spec';
import {
  type BootstrapEstimate,
  type QuantileDefinition,
  weightedMeansBootstrap,
} from '@chi/stats';
import type {
  BehaviorPoint,
  BlockCounts,
  ChartData,
  EimcEntry,
  FailureCount,
  HistoryDistance,
  HistoryDynamics,
  HistoryPoint,
  IntervalEstimate,
  MemoryCondition,
  MemoryPoint,
  ResourceRow,
  TaxonomyCount,
} from './chart-data';
import { type BehaviorIndicator, estimandWorldSets } from './estimand-world-sets';
import type { RunRecords } from './run-folder';
import type {
  BehaviorObservation,
  HistoryObservation,
  MemoryObservation,
  RunScores,
} from './score-run';
import { compareUtf8 } from './sha256-sums';
import { meanOverSet, WorldColumns } from './world-columns';
import { plannedWorlds } from './world-sets';

/** Options of {@link analyzeRun}; every default is recorded in the release's analysis parameters. */
export interface AnalyzeRunOptions {
  readonly alphas?: QualityAlphas;
  /** Cells with fewer complete worlds are captioned "exploratory". Default 30. */
  readonly exploratoryBelowWorlds?: number;
}

/** The default threshold below which a cell is exploratory (see docs/protocol.md#report). */
export const EXPLORATORY_BELOW_WORLDS = 30;

const HISTORIES: readonly HistoryId[] = HISTORY_IDS;
const CHECKPOINTS = [0, 1, 2, 3, 4] as const;
const BEHAVIOR_AXES = ['R', 'C', 'A', 'I'] as const;
const CONDITION_ORDER: Record<MemoryCondition, number> = { notebook: 0, blank: 1, oracle: 2 };

function ratio(numerator: number, denominator: number): Ratio {
  return { numerator, denominator, rate: denominator === 0 ? null : numerator / denominator };
}

function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** One planned world with every complete observation it holds. */
interface WorldCluster {
  readonly seed: number;
  readonly memory: ReadonlyMap<string, MemoryObservation>;
  readonly history: ReadonlyMap<string, HistoryObservation>;
  readonly behavior: ReadonlyMap<string, BehaviorObservation>;
}

function memoryCellKey(systemId: string, condition: MemoryCondition, load: number): string {
  return `${systemId}|${condition}|${load}`;
}

/** How many worlds an estimate uses, are complete in its cell, and were planned for it. */
interface WorldCounts {
  readonly used: number;
  readonly complete: number;
  readonly planned: number;
}

interface MemoryCell {
  readonly systemId: string;
  readonly condition: MemoryCondition;
  readonly load: number;
}

/**
 * Computes every displayed number from the scores: capacity curves with intervals, EIMC at each
 * tau, controls, history, behavior, failure taxonomy, resources and missingness. Pure; one
 * cluster bootstrap over worlds (the recorded analysis seed and resample count) recomputes every
 * nonlinear aggregate in each replicate, so model, load, history and checkpoint stay paired.
 */
export function analyzeRun(
  records: RunRecords,
  scores: RunScores,
  options: AnalyzeRunOptions = {},
): ChartData {
  const alphas = options.alphas ?? EQUAL_ALPHAS;
  const exploratoryBelowWorlds = options.exploratoryBelowWorlds ?? EXPLORATORY_BELOW_WORLDS;
  const { manifest } = records;
  const analysis = manifest.analysis;
  const systems = manifest.systems.map((s) => s.id);

  // Clusters: every planned world, in seed order. One replicate draws one multiset of them and
  // every estimand keeps the drawn worlds of its own world set, so the draws never depend on
  // which blocks happen to be complete.
  const seeds = plannedWorlds(manifest.worldSeeds, [
    ...scores.memory,
    ...scores.history,
    ...scores.behavior,
  ]);
  const clusters: WorldCluster[] = seeds.map((seed) => ({
    seed,
    memory: new Map(
      scores.memory
        .filter((o) => o.blockComplete && o.worldSeed === seed)
        .map((o) => [memoryCellKey(o.systemId, o.condition, o.load), o]),
    ),
    history: new Map(
      scores.history
        .filter((o) => o.blockComplete && o.worldSeed === seed)
        .map((o) => [o.systemId, o]),
    ),
    behavior: new Map(
      scores.behavior
        .filter((o) => o.blockComplete && o.worldSeed === seed)
        .map((o) => [o.systemId, o]),
    ),
  }));

  const memoryCells: MemoryCell[] = [];
  {
    const seen = new Set<string>();
    for (const o of scores.memory) {
      const key = memoryCellKey(o.systemId, o.condition, o.load);
      if (!seen.has(key)) {
        seen.add(key);
        memoryCells.push({ systemId: o.systemId, condition: o.condition, load: o.load });
      }
    }
    memoryCells.sort(
      (a, b) =>
        systems.indexOf(a.systemId) - systems.indexOf(b.systemId) ||
        CONDITION_ORDER[a.condition] - CONDITION_ORDER[b.condition] ||
        a.load - b.load,
    );
  }
  const notebookLoads = (systemId: string) =>
    memoryCells
      .filter((c) => c.systemId === systemId && c.condition === 'notebook')
      .map((c) => c.load);
  const historySystems = systems.filter((id) => scores.history.some((o) => o.systemId === id));
  const behaviorSystems = systems.filter((id) => scores.behavior.some((o) => o.systemId === id));

  // World sets, fixed before resampling (docs/protocol.md#world-sets).
  const sets = estimandWorldSets(scores);

  // Every displayed aggregate is a function of means over world sets, so the whole analysis is one
  // packed worlds x columns matrix for the fast path of @chi/stats (identical draws to
  // clusterBootstrap): a mean over a set is mean(value x 1[set]) / mean(1[set]).
  const worldOf = new Map(clusters.map((c) => [c.seed, c]));
  const columns = new WorldColumns(seeds);
  const names: string[] = [];
  const outputs: ((means: Float64Array, out: Float64Array) => number | null)[] = [];
  const quantiles: Record<string, QuantileDefinition> = {};
  const define = (
    name: string,
    output: (means: Float64Array, out: Float64Array) => number | null,
  ) => {
    names.push(name);
    outputs.push(output);
    return names.length - 1;
  };
  /** Registers the mean over a world set of one value per world; returns a reader of it. */
  const meanOf = (worlds: ReadonlySet<number>, pick: (world: WorldCluster) => number) => {
    const indicator = columns.indicator(worlds);
    const value = columns.values(worlds, (seed) => pick(worldOf.get(seed) as WorldCluster));
    return (means: Float64Array) => meanOverSet(means, value, indicator);
  };

  const qualityIndex = new Map<string, number>();
  for (const cell of memoryCells) {
    const key = memoryCellKey(cell.systemId, cell.condition, cell.load);
    const curve = new Set(sets.curve(cell.systemId, cell.condition));
    const observation = (w: WorldCluster) => w.memory.get(key) as MemoryObservation;
    const factor = Object.fromEntries(
      FACTOR_NAMES.map((name) => [name, meanOf(curve, (w) => observation(w).score.factors[name])]),
    ) as Record<(typeof FACTOR_NAMES)[number], (means: Float64Array) => number | null>;
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
    qualityIndex.set(
      key,
      define(`m|${key}|Q`, (means) => {
        const factors = factorsAt(means);
        return factors === null ? null : qualityScore(factors, alphas);
      }),
    );
    const within = meanOf(
      new Set(sets.withinWorld(cell.systemId, cell.condition, cell.load)),
      (w) => observation(w).score.qualityScore as number,
    );
    define(`m|${key}|W`, within);
    for (const name of FACTOR_NAMES) define(`m|${key}|${name}`, factor[name]);
  }

  // Replicate-side counts that percentile summaries cannot carry: EIMC replicates with no passing load.
  const noPassing = new Map<string, number>();
  let isReplicate = false;
  for (const systemId of systems) {
    const loads = notebookLoads(systemId);
    if (loads.length === 0) continue;
    const curve = loads.map(
      (load) => qualityIndex.get(memoryCellKey(systemId, 'notebook', load)) as number,
    );
    for (const tau of analysis.taus) {
      const name = `e|${systemId}|${tau}`;
      quantiles[name] = 'inverted_cdf';
      // reads the curve's Q_M values this replicate already wrote (NaN where undefined)
      define(name, (_means, out) => {
        const q = curve.map((index) => out[index] as number);
        if (q.some(Number.isNaN)) return null;
        const value = eimcFromScores(loads, q, tau);
        if (value === null && isReplicate) noPassing.set(name, (noPassing.get(name) ?? 0) + 1);
        return value;
      });
    }
  }

  for (const systemId of historySystems) {
    const observation = (w: WorldCluster) => w.history.get(systemId) as HistoryObservation;
    const over = (worlds: readonly number[], pick: (o: HistoryObservation) => number) =>
      meanOf(new Set(worlds), (w) => pick(observation(w)));
    for (const h of HISTORIES) {
      for (const k of CHECKPOINTS) {
        const accuracy = (o: HistoryObservation) =>
          o.score.checkpoints[k]?.histories[h].accuracy as CheckpointAccuracy;
        define(
          `h|${systemId}|${h}|${k}|acc`,
          over(sets.historyCheckpoint(systemId, h, k), (o) => accuracy(o).accuracy.rate as number),
        );
        define(
          `h|${systemId}|${h}|${k}|unk`,
          over(
            sets.historyCheckpoint(systemId, h, k),
            (o) => accuracy(o).explicitUnknownRate.rate as number,
          ),
        );
      }
      define(
        `y|${systemId}|${h}|cont`,
        over(sets.continuity(systemId, h), (o) => o.score.continuity[h].primary.value as number),
      );
      define(
        `y|${systemId}|${h}|corr`,
        over(sets.correction(systemId, h), (o) => o.score.correctionResponse[h].value as number),
      );
    }
    for (const k of CHECKPOINTS) {
      const divergence = (o: HistoryObservation) =>
        o.score.checkpoints[k]?.divergence as ExperienceDivergence;
      const worlds = sets.distances(systemId, k);
      const ab = over(worlds, (o) => divergence(o).differentHistories.value as number);
      const aa2 = over(worlds, (o) => divergence(o).sameHistory.value as number);
      define(`d|${systemId}|${k}|AB`, ab);
      define(`d|${systemId}|${k}|AA2`, aa2);
      // The difference of the two displayed means: divergence == D(A,B) - D(A,A2) exactly.
      define(`d|${systemId}|${k}|div`, (means) => {
        const b = ab(means);
        const a2 = aa2(means);
        return b === null || a2 === null ? null : b - a2;
      });
    }
  }
  for (const systemId of behaviorSystems) {
    const observation = (w: WorldCluster) => w.behavior.get(systemId) as BehaviorObservation;
    for (const axis of BEHAVIOR_AXES) {
      define(
        `b|${systemId}|${axis}`,
        meanOf(
          new Set(sets.behavior(systemId, axis)),
          (w) => observation(w).score.axes[axis].accuracy.rate as number,
        ),
      );
    }
    define(
      `b|${systemId}|A-frame-change`,
      meanOf(
        new Set(sets.behavior(systemId, 'A-frame-change')),
        (w) => observation(w).score.frameInducedChange.rate.rate as number,
      ),
    );
  }

  let estimates: Record<string, BootstrapEstimate> = {};
  if (seeds.length > 0 && names.length > 0 && columns.width > 0) {
    const packed = columns.pack();
    let call = 0;
    estimates = weightedMeansBootstrap({
      ...packed,
      names,
      // outputs run in order, so an EIMC reads the Q_M values of the same replicate
      statistic: (means, out) => {
        isReplicate = call++ > 0;
        for (let index = 0; index < outputs.length; index++) {
          const value = (outputs[index] as (m: Float64Array, o: Float64Array) => number | null)(
            means,
            out,
          );
          out[index] = value === null ? Number.NaN : value;
        }
      },
      seed: analysis.seed,
      resamples: analysis.resamples,
      level: analysis.level,
      quantile: Object.fromEntries(
        names
          .filter((n) => quantiles[n] !== undefined)
          .map((n) => [n, quantiles[n] as QuantileDefinition]),
      ),
    });
  }

  /** An estimate with its interval and world set (used / complete in the cell / planned). */
  const interval = (name: string, counts: WorldCounts): IntervalEstimate => {
    const e = estimates[name];
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
  };

  const blockCounts = (experiment: string, load: number | null): BlockCounts => {
    const rows = scores.blocks.filter(
      (b) => b.experiment === experiment && (load === null || b.load === load),
    );
    return {
      planned: rows.length,
      complete: rows.filter((b) => b.status === 'complete').length,
      incomplete: rows.filter((b) => b.status === 'incomplete').length,
      missing: rows.filter((b) => b.status === 'not_started').length,
    };
  };

  const memory: MemoryPoint[] = memoryCells.map((cell) => {
    const key = memoryCellKey(cell.systemId, cell.condition, cell.load);
    const worldSeeds = [...sets.curve(cell.systemId, cell.condition)];
    const curve = new Set(worldSeeds);
    const observations = scores.memory.filter(
      (o) =>
        o.blockComplete &&
        curve.has(o.worldSeed) &&
        memoryCellKey(o.systemId, o.condition, o.load) === key,
    );
    const blocks = blockCounts(cell.condition === 'notebook' ? 'memory' : 'controls', cell.load);
    const counts = (used: number): WorldCounts => ({
      used,
      complete: sets.memoryCell(cell.systemId, cell.condition, cell.load).length,
      planned: blocks.planned,
    });
    const worlds = counts(worldSeeds.length);
    const pooled = (stratum: Exclude<Stratum, 'f'>) =>
      ratio(
        observations.reduce((s, o) => s + o.score.strata[stratum].numerator, 0),
        observations.reduce((s, o) => s + o.score.strata[stratum].denominator, 0),
      );
    const lures = (pick: (o: MemoryObservation) => Ratio) =>
      ratio(
        observations.reduce((s, o) => s + pick(o).numerator, 0),
        observations.reduce((s, o) => s + pick(o).denominator, 0),
      );
    return {
      systemId: cell.systemId,
      condition: cell.condition,
      load: cell.load,
      blocks,
      worldSeeds,
      qualityScore: interval(`m|${key}|Q`, worlds),
      meanWithinWorldQualityScore: interval(
        `m|${key}|W`,
        counts(sets.withinWorld(cell.systemId, cell.condition, cell.load).length),
      ),
      factors: {
        r: interval(`m|${key}|r`, worlds),
        t: interval(`m|${key}|t`, worlds),
        s: interval(`m|${key}|s`, worlds),
        u: interval(`m|${key}|u`, worlds),
        i: interval(`m|${key}|i`, worlds),
        oneMinusF: interval(`m|${key}|oneMinusF`, worlds),
      },
      strata: {
        r: pooled('r'),
        t: pooled('t'),
        s: pooled('s'),
        u: pooled('u'),
        i: pooled('i'),
        f: lures((o) => o.score.lures.f),
      },
      unsupportedAffirmativeLures: lures((o) => o.score.lures.falseAffirmativeRate),
      invalidLures: lures((o) => o.score.lures.invalidLureRate),
      exploratory: worldSeeds.length < exploratoryBelowWorlds,
    };
  });

  const eimc: EimcEntry[] = [];
  for (const systemId of systems) {
    const points = memory.filter((p) => p.systemId === systemId && p.condition === 'notebook');
    if (points.length === 0 || points.some((p) => p.qualityScore.estimate === null)) continue;
    const worldSeeds = [...sets.curve(systemId, 'notebook')];
    const curve = points.map((p) => ({
      load: p.load,
      qualityScore: p.qualityScore.estimate as number,
      factors: factorsOf(p),
      worlds: p.qualityScore.worlds,
    }));
    for (const result of eimcSensitivity(curve, analysis.taus)) {
      const name = `e|${systemId}|${result.tau}`;
      const e = estimates[name];
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
        lower:
          e?.interval === null || e === undefined || worldSeeds.length < 2
            ? null
            : e.interval.lower,
        upper:
          e?.interval === null || e === undefined || worldSeeds.length < 2
            ? null
            : e.interval.upper,
        noPassingReplicates: noPassing.get(name) ?? 0,
        resamples: e?.resamples ?? 0,
      });
    }
  }

  const history: HistoryPoint[] = [];
  const historyDistances: HistoryDistance[] = [];
  const historyDynamics: HistoryDynamics[] = [];
  for (const systemId of historySystems) {
    const counts = blockCounts('history', null);
    const complete = sets.historyComplete(systemId).length;
    const worldCounts = (worlds: readonly number[]): WorldCounts => ({
      used: worlds.length,
      complete,
      planned: counts.planned,
    });
    const observations = scores.history.filter((o) => o.blockComplete && o.systemId === systemId);
    for (const h of HISTORIES) {
      for (const k of CHECKPOINTS) {
        const results = observations
          .map((o) => o.score.checkpoints[k]?.histories[h])
          .filter((r) => r !== undefined);
        history.push({
          systemId,
          history: h,
          checkpoint: k,
          blocks: counts,
          accuracy: interval(
            `h|${systemId}|${h}|${k}|acc`,
            worldCounts(sets.historyCheckpoint(systemId, h, k)),
          ),
          unknownRate: interval(
            `h|${systemId}|${h}|${k}|unk`,
            worldCounts(sets.historyCheckpoint(systemId, h, k)),
          ),
          invalid: ratio(
            results.reduce((s, r) => s + r.accuracy.invalidRate.numerator, 0),
            results.reduce((s, r) => s + r.accuracy.invalidRate.denominator, 0),
          ),
          validVectors: results.filter((r) => r.vector.invalidIndices.length === 0).length,
        });
      }
    }
    for (const k of CHECKPOINTS) {
      const worlds = worldCounts(sets.distances(systemId, k));
      historyDistances.push({
        systemId,
        checkpoint: k,
        worldSeeds: [...sets.distances(systemId, k)],
        distanceAB: interval(`d|${systemId}|${k}|AB`, worlds),
        distanceAA2: interval(`d|${systemId}|${k}|AA2`, worlds),
        divergence: interval(`d|${systemId}|${k}|div`, worlds),
      });
    }
    for (const h of HISTORIES) {
      historyDynamics.push({
        systemId,
        history: h,
        continuity: interval(`y|${systemId}|${h}|cont`, worldCounts(sets.continuity(systemId, h))),
        correctionResponse: interval(
          `y|${systemId}|${h}|corr`,
          worldCounts(sets.correction(systemId, h)),
        ),
      });
    }
  }

  const behavior: BehaviorPoint[] = [];
  for (const systemId of behaviorSystems) {
    const observations = scores.behavior.filter((o) => o.blockComplete && o.systemId === systemId);
    const counts = blockCounts('behavior', null);
    const worldCounts = (indicator: BehaviorIndicator): WorldCounts => ({
      used: sets.behavior(systemId, indicator).length,
      complete: sets.behaviorComplete(systemId).length,
      planned: counts.planned,
    });
    for (const axis of BEHAVIOR_AXES) {
      const axes = observations.map((o) => o.score.axes[axis]);
      behavior.push({
        systemId,
        indicator: axis,
        blocks: counts,
        value: interval(`b|${systemId}|${axis}`, worldCounts(axis)),
        pooled: ratio(
          axes.reduce((s, a) => s + a.accuracy.numerator, 0),
          axes.reduce((s, a) => s + a.accuracy.denominator, 0),
        ),
        invalid: ratio(
          axes.reduce((s, a) => s + a.invalid + a.missing + a.duplicate, 0),
          axes.reduce((s, a) => s + a.accuracy.denominator, 0),
        ),
      });
    }
    const frames = observations.map((o) => o.score.frameInducedChange);
    behavior.push({
      systemId,
      indicator: 'A-frame-change',
      blocks: counts,
      value: interval(`b|${systemId}|A-frame-change`, worldCounts('A-frame-change')),
      pooled: ratio(
        frames.reduce((s, f) => s + f.rate.numerator, 0),
        frames.reduce((s, f) => s + f.rate.denominator, 0),
      ),
      invalid: ratio(
        frames.reduce((s, f) => s + f.pairs.filter((p) => p.changed === null).length, 0),
        frames.reduce((s, f) => s + f.pairs.length, 0),
      ),
    });
  }

  return {
    kind: 'chi-chart-data',
    schemaVersion: 1,
    run: {
      protocol: manifest.protocol,
      runId: records.status?.runId ?? defaultRunId(manifest.createdAt, records.manifestSha256),
      manifestSha256: records.manifestSha256,
      evidenceClass: manifest.evidenceClass,
      systems: manifest.systems.map((s) => ({
        id: s.id,
        model: s.model,
        kind: s.kind,
        evidenceClass: s.evidenceClass,
        uncappedNotebook: s.uncappedNotebook ?? false,
        providers: [...s.providers],
        reasoningEffort: s.reasoningEffort,
        maxOutputTokens: s.maxOutputTokens,
        safetyPrice: s.safetyPrice === null ? null : { ...s.safetyPrice },
        returned: returnedIdentifiers(records, s.id),
      })),
      worldSeeds: [...manifest.worldSeeds],
      notebookCapBytes: manifest.notebookCapBytes,
      createdAt: manifest.createdAt,
      lastActivityAt: lastActivity(records),
      analysis: {
        seed: analysis.seed,
        resamples: analysis.resamples,
        level: analysis.level,
        taus: [...analysis.taus],
        exploratoryBelowWorlds,
      },
      transport: {
        ceilingUsd: manifest.ceilingUsd,
        deadlineMs: manifest.deadlineMs,
        maxRetries: manifest.retry.maxRetries,
        retryAfterCapMs: manifest.retry.retryAfterCapMs,
        reservationMargin: manifest.reservationMargin,
      },
      calibrationId: manifest.calibrationId ?? null,
      policies: manifest.policies === undefined ? null : { ...manifest.policies },
      featureSchemas: (manifest.featureSchemas ?? []).map((f) => ({
        ...f,
        features: [...f.features],
      })),
    },
    memory,
    eimc,
    resources: resources(records, systems),
    history,
    historyDistances,
    historyDynamics,
    historyVectors: scores.history
      .slice()
      .sort(
        (a, b) =>
          systems.indexOf(a.systemId) - systems.indexOf(b.systemId) || a.worldSeed - b.worldSeed,
      )
      .flatMap((o) =>
        HISTORIES.flatMap((history) =>
          CHECKPOINTS.map((checkpoint) => ({
            systemId: o.systemId,
            worldSeed: o.worldSeed,
            history,
            checkpoint,
            blockComplete: o.blockComplete,
            coordinates:
              o.score.checkpoints[checkpoint]?.histories[history].vector.coordinates ?? [],
          })),
        ),
      ),
    behavior,
    taxonomy: taxonomy(scores, systems),
    missingness: {
      blocks: [...scores.blocks],
      failures: failureCounts(records),
      smoke: records.smoke.map((s) => ({
        systemId: s.systemId,
        at: s.at,
        passed: s.passed,
        detail: s.detail,
      })),
    },
    chi: { value: null, reason: NO_CALIBRATION_REASON },
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

/** `yyyymmddThhmmssZ-<first 8 hex of the manifest hash>`, as RUN-FOLDER.md names runs. */
export function defaultRunId(createdAt: string, manifestSha256: string): string {
  const compact = createdAt.replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
  return `${compact}-${manifestSha256.slice(0, 8)}`;
}

function lastActivity(records: RunRecords): string | null {
  let last: string | null = null;
  for (const a of records.attempts) if (last === null || a.at > last) last = a.at;
  return last;
}

/**
 * The model and provider identifiers the endpoint returned for one system, counted over every
 * resolved attempt (`after_response`), sorted; the requested ID is in the manifest beside it.
 */
export function returnedIdentifiers(
  records: Pick<RunRecords, 'attempts'>,
  systemId: string,
): { model: string | null; provider: string | null; responses: number }[] {
  const counts = new Map<
    string,
    { model: string | null; provider: string | null; responses: number }
  >();
  for (const a of records.attempts) {
    if (a.systemId !== systemId || a.phase !== 'after_response' || a.result === null) continue;
    const model = a.result.returnedModel;
    const provider = a.result.returnedProvider;
    const key = JSON.stringify([model, provider]);
    const entry = counts.get(key) ?? { model, provider, responses: 0 };
    entry.responses++;
    counts.set(key, entry);
  }
  return [...counts.entries()].sort(([a], [b]) => compareUtf8(a, b)).map(([, entry]) => entry);
}

function resources(records: RunRecords, systems: readonly string[]): ResourceRow[] {
  const byRequest = new Map(records.plan.requests.map((r) => [r.requestId, r]));
  const rows = new Map<
    string,
    { row: Omit<ResourceRow, 'latencyMsMedian' | 'latencyMsMax'>; latencies: number[] }
  >();
  const latest = new Map<string, NonNullable<(typeof records.attempts)[number]['result']>>();
  for (const a of records.attempts)
    if (a.phase === 'after_response' && a.result !== null) latest.set(a.attemptId, a.result);
  for (const [attemptId, result] of latest) {
    const requestId = attemptId.replace(/#\d+$/, '');
    const request = byRequest.get(requestId);
    if (request === undefined) continue;
    const load =
      request.experiment === 'memory' || request.experiment === 'controls' ? request.load : null;
    const key = `${request.systemId}|${request.experiment}|${load ?? ''}`;
    const entry = rows.get(key) ?? {
      row: {
        systemId: request.systemId,
        experiment: request.experiment,
        load,
        requests: 0,
        failedRequests: 0,
        promptTokens: 0,
        completionTokens: 0,
        reasoningTokens: 0,
        requestsWithoutUsage: 0,
        costUsd: 0,
      },
      latencies: [],
    };
    const u = result.usage;
    entry.row = {
      ...entry.row,
      requests: entry.row.requests + 1,
      failedRequests: entry.row.failedRequests + (result.failure === 'none' ? 0 : 1),
      promptTokens: entry.row.promptTokens + (u.promptTokens ?? 0),
      completionTokens: entry.row.completionTokens + (u.completionTokens ?? 0),
      reasoningTokens: entry.row.reasoningTokens + (u.reasoningTokens ?? 0),
      requestsWithoutUsage:
        entry.row.requestsWithoutUsage +
        (u.promptTokens === null && u.completionTokens === null ? 1 : 0),
      costUsd: entry.row.costUsd + result.chargedUsd,
    };
    entry.latencies.push(result.latencyMs);
    rows.set(key, entry);
  }
  const experimentOrder = ['memory', 'controls', 'history', 'behavior'];
  return [...rows.values()]
    .map(({ row, latencies }) => ({
      ...row,
      latencyMsMedian: median(latencies),
      latencyMsMax: latencies.length === 0 ? null : Math.max(...latencies),
    }))
    .sort(
      (a, b) =>
        systems.indexOf(a.systemId) - systems.indexOf(b.systemId) ||
        experimentOrder.indexOf(a.experiment) - experimentOrder.indexOf(b.experiment) ||
        (a.load ?? 0) - (b.load ?? 0),
    );
}

function taxonomy(scores: RunScores, systems: readonly string[]): TaxonomyCount[] {
  const counts = new Map<string, TaxonomyCount>();
  for (const line of scores.memoryTraces) {
    if (!line.blockComplete) continue;
    const { trace } = line;
    const key = `${line.systemId}|${line.condition}|${line.load}|${trace.stratum}|${trace.reason}`;
    const prior = counts.get(key);
    counts.set(
      key,
      prior === undefined
        ? {
            systemId: line.systemId,
            condition: line.condition,
            load: line.load,
            stratum: trace.stratum,
            reason: trace.reason,
            pass: trace.verdict === 'pass',
            count: 1,
          }
        : { ...prior, count: prior.count + 1 },
    );
  }
  return [...counts.values()].sort(
    (a, b) =>
      systems.indexOf(a.systemId) - systems.indexOf(b.systemId) ||
      CONDITION_ORDER[a.condition] - CONDITION_ORDER[b.condition] ||
      a.load - b.load ||
      STRATA.indexOf(a.stratum) - STRATA.indexOf(b.stratum) ||
      compareUtf8(a.reason, b.reason),
  );
}

function failureCounts(records: RunRecords): FailureCount[] {
  const counts = new Map<string, FailureCount>();
  for (const f of records.failures) {
    const key = `${f.category}|${f.failure ?? ''}`;
    const prior = counts.get(key);
    counts.set(key, { category: f.category, failure: f.failure, count: (prior?.count ?? 0) + 1 });
  }
  return [...counts.values()].sort((a, b) =>
    compareUtf8(`${a.category}|${a.failure ?? ''}`, `${b.category}|${b.failure ?? ''}`),
  );
}
