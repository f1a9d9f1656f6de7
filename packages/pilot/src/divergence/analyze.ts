import {
  continuity,
  type DynamicResult,
  drift,
  hysteresis,
  memoryAccumulation,
  plasticity,
  recovery,
  responseDistance,
  stability,
} from '@chi/chis';
import type { ChisEntry, EvidenceClass } from '@chi/spec';
import {
  BOOTSTRAP_DEFAULTS,
  type BootstrapEstimate,
  clusterBootstrap,
  type IntervalMethod,
} from '@chi/stats';
import type { DivergenceManifest } from './manifest';

/** The distance-based series reported at every checkpoint, per system. */
export const DIVERGENCE_SERIES = [
  'excess',
  'differentHistory',
  'sameHistory',
  'swapExcess',
  'eraseExcess',
  'shamExcess',
  'swapFollowsState',
] as const;
/** One series name. */
export type DivergenceSeries = (typeof DIVERGENCE_SERIES)[number];

/** What each series is, in one sentence (published in the release). */
export const SERIES_DEFINITIONS: Readonly<Record<DivergenceSeries, string>> = {
  excess:
    'Excess divergence: D(A, B) - (D(A, A2) + D(B, B2)) / 2, different-history minus same-history distance.',
  differentHistory: 'D(A, B): distance between the different-history instances.',
  sameHistory: '(D(A, A2) + D(B, B2)) / 2: the same-history control distance of both histories.',
  swapExcess:
    'D(A.swap, B.swap) - (D(A, A2) + D(B, B2)) / 2: divergence after the notebooks were exchanged (the swapped notebooks are main-arm notebooks, so the main control applies).',
  eraseExcess:
    'D(A.erase, B.erase) - (D(A.erase, A2.erase) + D(B.erase, B2.erase)) / 2: divergence after the notebooks were erased, against erased same-history controls (erasure changes the state, so the main arms cannot be its control).',
  shamExcess:
    'D(A.sham, B.sham) - (D(A, A2) + D(B, B2)) / 2: divergence after a sham erasure (same call, state restored; under the null of no sham effect the main control applies).',
  swapFollowsState:
    '(D(A.swap, A) - D(A.swap, B) + D(B.swap, B) - D(B.swap, A)) / 2: positive when the swapped instances decide like the history whose notebook they hold, negative when like their own history.',
};

/** The CHIS dynamics reported per system. */
export const DIVERGENCE_DYNAMICS = [
  'experienceDivergence',
  'continuity',
  'drift',
  'stability',
  'recovery',
  'plasticity',
  'hysteresis',
  'memoryAccumulation',
] as const;
/** One dynamic's name. */
export type DivergenceDynamic = (typeof DIVERGENCE_DYNAMICS)[number];

/** Definition and inputs of each dynamic, as the release prints them. */
export const DYNAMIC_DEFINITIONS: Readonly<
  Record<DivergenceDynamic, { readonly definition: string; readonly inputs: string }>
> = {
  experienceDivergence: {
    definition: 'Excess divergence at the preregistered primary checkpoint (manifest).',
    inputs: 'arms A, B, A2, B2 at the primary checkpoint',
  },
  continuity: {
    definition: 'Mean over adjacent neutral entries of 1 - D (chis continuity).',
    inputs: 'arms A, B, A2, B2; the later checkpoints (condition neutral)',
  },
  drift: {
    definition: 'D(baseline, primary checkpoint), unsigned (chis drift).',
    inputs: 'arms A, B, A2, B2; checkpoint 0 and the primary checkpoint',
  },
  stability: {
    definition: 'Mean over coordinates of the SD across neutral entries (chis stability).',
    inputs: 'arms A, B, A2, B2; the later checkpoints (condition neutral)',
  },
  recovery: {
    definition: '1 - D(pre, post) / D(pre, fault) around the reversible fault (chis recovery).',
    inputs: 'arm A.fault; the checkpoints before, at and after the fault',
  },
  plasticity: {
    definition:
      'Mean |(I_after - I_before) - (C_after - C_before)| of the correction against the matched non-correcting update (chis plasticity).',
    inputs:
      'arms A.correct (intervention) and A.matched (control) around the plasticity checkpoint',
  },
  hysteresis: {
    definition:
      'D between exposure A-then-B and B-then-A at the primary checkpoint: the same current conditions reached through different paths (chis hysteresis).',
    inputs: 'arms AB and BA at the primary checkpoint',
  },
  memoryAccumulation: {
    definition:
      'Least-squares slope per event of washoutKnown, the share of the fixed washout panel answered as the common evidence says (chis memoryAccumulation).',
    inputs: 'arms A, B, A2, B2; every checkpoint',
  },
};

/** A per-world value and why it is missing. */
interface WorldValue {
  readonly value: number | null;
  readonly reason: string | null;
}

/** One world's values of every named statistic of one system. */
interface WorldCluster {
  readonly seed: number;
  readonly values: ReadonlyMap<string, WorldValue>;
}

/** One bootstrapped number with its world count and, when undefined, the reason. */
export interface DivergenceEstimate {
  readonly estimate: number | null;
  readonly lower: number | null;
  readonly upper: number | null;
  /** Worlds whose value is defined (the world set of the estimate). */
  readonly worlds: number;
  readonly plannedWorlds: number;
  /** Why the estimate is null, or why it has no interval; null otherwise. */
  readonly reason: string | null;
}

/** The release section of one system. */
export interface DivergenceSystemResult {
  readonly systemId: string;
  readonly evidenceClass: EvidenceClass;
  readonly trajectory: readonly {
    readonly checkpoint: number;
    readonly phase: string;
    readonly series: Readonly<Record<DivergenceSeries, DivergenceEstimate>>;
  }[];
  readonly dynamics: readonly {
    readonly name: DivergenceDynamic;
    readonly definition: string;
    readonly inputs: string;
    readonly value: DivergenceEstimate;
  }[];
}

/** The whole analysis (`divergence.json` of the release). */
export interface DivergenceAnalysis {
  readonly kind: 'divergence-analysis';
  readonly protocol: string;
  readonly manifestSha256: string;
  /** Read from the manifest, never from code. */
  readonly primaryCheckpoint: number;
  /** The manifest's analysis settings and how every interval was read from the replicates. */
  readonly analysis: DivergenceManifest['analysis'] & { readonly intervalMethod: IntervalMethod };
  readonly seriesDefinitions: typeof SERIES_DEFINITIONS;
  /**
   * Instances (system, world, arm) whose trajectory an infrastructure failure or an abandoned
   * request ended: excluded from every series and dynamic, each with its reason.
   */
  readonly excludedInstances: readonly ExcludedInstance[];
  readonly systems: readonly DivergenceSystemResult[];
}

/** An instance left out of the analysis, and why. */
export interface ExcludedInstance {
  readonly systemId: string;
  readonly worldSeed: number;
  readonly arm: string;
  readonly requestId: string;
  readonly reason: string;
}

const MAIN_ARMS = ['A', 'B', 'A2', 'B2'] as const;

/** One world's trajectories by arm, and the arms excluded as incomplete instances, with why. */
interface Trajectories {
  get(arm: string): readonly ChisEntry[] | undefined;
  readonly excluded: ReadonlyMap<string, string>;
}

/** Null with the exclusion reason when an input arm is an incomplete instance, else `compute()`. */
function unlessExcluded(
  trajectories: Trajectories,
  arms: readonly string[],
  compute: () => WorldValue,
): WorldValue {
  const arm = arms.find((candidate) => trajectories.excluded.has(candidate));
  if (arm === undefined) return compute();
  return { value: null, reason: `${arm} excluded: ${trajectories.excluded.get(arm)}` };
}

function lastAt(entries: readonly ChisEntry[] | undefined, checkpoint: number): ChisEntry | null {
  const here = (entries ?? []).filter((entry) => entry.checkpoint === checkpoint);
  return here.reduce<ChisEntry | null>(
    (best, entry) => (best === null || entry.eventCount > best.eventCount ? entry : best),
    null,
  );
}

function distance(
  trajectories: Trajectories,
  x: string,
  y: string,
  checkpoint: number,
): WorldValue {
  const excluded = [x, y].find((arm) => trajectories.excluded.has(arm));
  if (excluded !== undefined)
    return {
      value: null,
      reason: `${excluded} excluded: ${trajectories.excluded.get(excluded)}`,
    };
  const a = lastAt(trajectories.get(x), checkpoint);
  const b = lastAt(trajectories.get(y), checkpoint);
  if (a === null || b === null)
    return {
      value: null,
      reason: `${a === null ? x : y} has no probe at checkpoint ${checkpoint}`,
    };
  return responseDistance(a, b);
}

/** Combines world values; null (with the first reason) when any input is null. */
function combine(parts: readonly WorldValue[], f: (values: number[]) => number): WorldValue {
  const missing = parts.find((part) => part.value === null);
  if (missing !== undefined) return { value: null, reason: missing.reason };
  return { value: f(parts.map((part) => part.value as number)), reason: null };
}

function seriesAt(
  trajectories: Trajectories,
  checkpoint: number,
): Map<DivergenceSeries, WorldValue> {
  const d = (x: string, y: string) => distance(trajectories, x, y, checkpoint);
  const same = combine([d('A', 'A2'), d('B', 'B2')], ([aa, bb]) => ((aa ?? 0) + (bb ?? 0)) / 2);
  const minusSame = (value: WorldValue) => combine([value, same], ([v, s]) => (v ?? 0) - (s ?? 0));
  return new Map<DivergenceSeries, WorldValue>([
    ['excess', minusSame(d('A', 'B'))],
    ['differentHistory', d('A', 'B')],
    ['sameHistory', same],
    ['swapExcess', minusSame(d('A.swap', 'B.swap'))],
    [
      'eraseExcess',
      combine(
        [d('A.erase', 'B.erase'), d('A.erase', 'A2.erase'), d('B.erase', 'B2.erase')],
        ([ab, aa, bb]) => (ab ?? 0) - ((aa ?? 0) + (bb ?? 0)) / 2,
      ),
    ],
    ['shamExcess', minusSame(d('A.sham', 'B.sham'))],
    [
      'swapFollowsState',
      combine(
        [d('A.swap', 'A'), d('A.swap', 'B'), d('B.swap', 'B'), d('B.swap', 'A')],
        ([aa, ab, bb, ba]) => ((aa ?? 0) - (ab ?? 0) + (bb ?? 0) - (ba ?? 0)) / 2,
      ),
    ],
  ]);
}

function fromDynamic(result: DynamicResult): WorldValue {
  return { value: result.value, reason: result.reason };
}

/** Mean over the main arms of a per-trajectory dynamic; null when any arm's value is null. */
function overMainArms(
  trajectories: Trajectories,
  compute: (entries: readonly ChisEntry[]) => WorldValue,
): WorldValue {
  return combine(
    MAIN_ARMS.map((arm) =>
      unlessExcluded(trajectories, [arm], () => compute(trajectories.get(arm) ?? [])),
    ),
    (values) => values.reduce((sum, value) => sum + value, 0) / values.length,
  );
}

function dynamicsOf(
  trajectories: Trajectories,
  manifest: DivergenceManifest,
): Map<DivergenceDynamic, WorldValue> {
  const primary = manifest.primaryCheckpoint;
  const ops = manifest.operations;
  const guard = (compute: () => WorldValue): WorldValue => {
    try {
      return compute();
    } catch (error) {
      return { value: null, reason: (error as Error).message };
    }
  };
  return new Map<DivergenceDynamic, WorldValue>([
    ['experienceDivergence', seriesAt(trajectories, primary).get('excess') as WorldValue],
    ['continuity', overMainArms(trajectories, (entries) => fromDynamic(continuity(entries)))],
    [
      'drift',
      overMainArms(trajectories, (entries) =>
        fromDynamic(drift(entries, { target: { checkpoint: primary } })),
      ),
    ],
    ['stability', overMainArms(trajectories, (entries) => fromDynamic(stability(entries)))],
    [
      'recovery',
      unlessExcluded(trajectories, ['A.fault'], () =>
        guard(() => fromDynamic(recovery(trajectories.get('A.fault') ?? []))),
      ),
    ],
    [
      'plasticity',
      unlessExcluded(trajectories, ['A.correct', 'A.matched'], () =>
        guard(() =>
          fromDynamic(
            plasticity(trajectories.get('A.correct') ?? [], trajectories.get('A.matched') ?? [], {
              before: ops.plasticityAt - 1,
              after: ops.plasticityAt,
            }),
          ),
        ),
      ),
    ],
    [
      'hysteresis',
      unlessExcluded(trajectories, ['AB', 'BA'], () =>
        guard(() =>
          fromDynamic(
            hysteresis(trajectories.get('AB') ?? [], trajectories.get('BA') ?? [], {
              checkpoint: primary,
            }),
          ),
        ),
      ),
    ],
    [
      'memoryAccumulation',
      overMainArms(trajectories, (entries) =>
        fromDynamic(memoryAccumulation(entries, { feature: 'washoutKnown' })),
      ),
    ],
  ]);
}

function clusterOf(
  manifest: DivergenceManifest,
  seed: number,
  entries: readonly ChisEntry[],
  excluded: ReadonlyMap<string, string>,
): WorldCluster {
  const lists = new Map<string, ChisEntry[]>();
  for (const entry of entries) {
    const list = lists.get(entry.history ?? '') ?? [];
    list.push(entry);
    lists.set(entry.history ?? '', list);
  }
  const byArm: Trajectories = { get: (arm) => lists.get(arm), excluded };
  const values = new Map<string, WorldValue>();
  for (const { checkpoint } of manifest.checkpoints) {
    for (const [name, value] of seriesAt(byArm, checkpoint))
      values.set(`${name}@${checkpoint}`, value);
  }
  for (const [name, value] of dynamicsOf(byArm, manifest)) values.set(name, value);
  return { seed, values };
}

function meanDefined(sample: readonly WorldCluster[], name: string): number | null {
  let sum = 0;
  let count = 0;
  for (const cluster of sample) {
    const value = cluster.values.get(name)?.value ?? null;
    if (value === null) continue;
    sum += value;
    count += 1;
  }
  return count === 0 ? null : sum / count;
}

function toEstimate(
  name: string,
  estimate: BootstrapEstimate,
  clusters: readonly WorldCluster[],
): DivergenceEstimate {
  const defined = clusters.filter((cluster) => cluster.values.get(name)?.value != null);
  const firstReason = clusters
    .find((cluster) => cluster.values.get(name)?.value == null)
    ?.values.get(name)?.reason;
  const round = (value: number | null) => (value === null ? null : Math.round(value * 1e9) / 1e9);
  return {
    estimate: round(estimate.estimate),
    lower: round(estimate.interval?.lower ?? null),
    upper: round(estimate.interval?.upper ?? null),
    worlds: defined.length,
    plannedWorlds: clusters.length,
    reason:
      estimate.estimate === null
        ? (firstReason ?? 'undefined in every world')
        : estimate.interval === null
          ? `no interval: ${estimate.intervalOmittedReason}`
          : null,
  };
}

/**
 * Analyzes a divergence run's CHIS entries: per system, every series at every checkpoint of the
 * manifest and every dynamic, each the mean over the worlds where it is defined, with pointwise
 * intervals (`@chi/stats`' default method, named in `analysis.intervalMethod`) from one clustered bootstrap over worlds per system (one multiset per
 * replicate for every checkpoint, arm and dynamic: pairing preserved). The primary checkpoint is
 * the manifest's.
 */
export function analyzeDivergence(
  manifest: DivergenceManifest,
  manifestSha256: string,
  entries: readonly ChisEntry[],
  excluded: readonly ExcludedInstance[] = [],
): DivergenceAnalysis {
  const systems = manifest.systems.map((system): DivergenceSystemResult => {
    const clusters = manifest.worldSeeds.map((seed) =>
      clusterOf(
        manifest,
        seed,
        entries.filter(
          (entry) =>
            entry.systemId === system.id &&
            entry.worldSeed === seed &&
            !excluded.some(
              (instance) =>
                instance.systemId === system.id &&
                instance.worldSeed === seed &&
                instance.arm === entry.history,
            ),
        ),
        new Map(
          excluded
            .filter((instance) => instance.systemId === system.id && instance.worldSeed === seed)
            .map((instance) => [instance.arm, instance.reason]),
        ),
      ),
    );
    const names = [...(clusters[0]?.values.keys() ?? [])];
    const boot = clusterBootstrap({
      clusters,
      seed: manifest.analysis.seed,
      resamples: manifest.analysis.resamples,
      level: manifest.analysis.level,
      statistic: (sample) =>
        Object.fromEntries(names.map((name) => [name, meanDefined(sample, name)])),
    });
    const estimate = (name: string) => toEstimate(name, boot[name] as BootstrapEstimate, clusters);
    return {
      systemId: system.id,
      evidenceClass: system.evidenceClass,
      trajectory: manifest.checkpoints.map(({ checkpoint, phase }) => ({
        checkpoint,
        phase,
        series: Object.fromEntries(
          DIVERGENCE_SERIES.map((series) => [series, estimate(`${series}@${checkpoint}`)]),
        ) as Record<DivergenceSeries, DivergenceEstimate>,
      })),
      dynamics: DIVERGENCE_DYNAMICS.map((name) => ({
        name,
        ...DYNAMIC_DEFINITIONS[name],
        value: estimate(name),
      })),
    };
  });
  return {
    kind: 'divergence-analysis',
    protocol: manifest.protocol,
    manifestSha256,
    primaryCheckpoint: manifest.primaryCheckpoint,
    // Built field by field: a manifest read back from its canonical JSON has sorted keys, and the
    // release must not depend on which one it was given.
    analysis: {
      seed: manifest.analysis.seed,
      resamples: manifest.analysis.resamples,
      level: manifest.analysis.level,
      intervalMethod: BOOTSTRAP_DEFAULTS.method,
    },
    seriesDefinitions: SERIES_DEFINITIONS,
    excludedInstances: excluded.map((instance) => ({
      systemId: instance.systemId,
      worldSeed: instance.worldSeed,
      arm: instance.arm,
      requestId: instance.requestId,
      reason: instance.reason,
    })),
    systems,
  };
}

/**
 * An estimate as the release's Markdown and HTML print it: the value with its pointwise interval
 * (or why it has none) and the worlds it used, or null with the reason.
 */
export function formatEstimate(value: DivergenceEstimate): string {
  if (value.estimate === null) return `null (${value.reason ?? 'undefined'})`;
  const interval =
    value.lower === null || value.upper === null
      ? ` (${value.reason ?? 'no interval'})`
      : ` [${value.lower.toFixed(3)}, ${value.upper.toFixed(3)}]`;
  return `${value.estimate.toFixed(3)}${interval}, ${value.worlds}/${value.plannedWorlds} worlds`;
}
