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
import { replicateChange } from '@chi/chis/internal';
import type { DivergenceManifest } from '@chi/experiments/internal';
import {
  type DivergenceIntervalMethod,
  LEGACY_DIVERGENCE_INTERVAL_METHOD,
  type NotApplicableArm,
  notApplicableArms,
} from '@chi/experiments/internal';
import type { ChisEntry, EvidenceClass } from '@chi/spec';
import {
  type BootstrapEstimate,
  clusterBootstrap,
  type SimultaneousBand,
  simultaneousBands,
  studentizedClusterMeans,
} from '@chi/stats';
import { notEstimableReason } from './estimable';

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

/** The CHIS dynamics reported per system: each history-dependence quantity beside its floor. */
export const DIVERGENCE_DYNAMICS = [
  'experienceDivergence',
  'continuity',
  'continuityRaw',
  'continuityFloor',
  'drift',
  'driftRaw',
  'driftFloor',
  'stability',
  'recovery',
  'plasticity',
  'plasticityRaw',
  'plasticityFloor',
  'hysteresis',
  'hysteresisRaw',
  'hysteresisFloor',
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
    definition:
      'Excess continuity: continuityRaw - continuityFloor, how much closer consecutive neutral probes of one instance are than two same-history instances (0 when nothing persists beyond the shared history).',
    inputs: 'arms A, B, A2, B2; the later checkpoints (condition neutral)',
  },
  continuityRaw: {
    definition:
      'Mean over A, B, A2, B2 of the mean over adjacent neutral entries of 1 - D (chis continuity).',
    inputs: 'arms A, B, A2, B2; the later checkpoints (condition neutral)',
  },
  continuityFloor: {
    definition:
      'Mean over the neutral checkpoints of 1 - (D(A, A2) + D(B, B2)) / 2: the continuity of two same-history instances.',
    inputs: 'arms A, B, A2, B2; the later checkpoints',
  },
  drift: {
    definition:
      'Excess drift: driftRaw - driftFloor, movement from the baseline beyond what two probes of one unchanged state differ by.',
    inputs: 'arms A, B, A2, B2; the baseline checkpoint and the primary checkpoint',
  },
  driftRaw: {
    definition: 'Mean over A, B, A2, B2 of D(baseline, primary checkpoint) (chis drift).',
    inputs: 'arms A, B, A2, B2; the baseline checkpoint and the primary checkpoint',
  },
  driftFloor: {
    definition:
      '(D(A, A2) + D(B, B2)) / 2 at the baseline checkpoint: every instance is in the same state there (no history), so this is what two probes of one state differ by.',
    inputs: 'arms A, B, A2, B2 at the baseline checkpoint',
  },
  stability: {
    definition:
      'Mean over A, B, A2, B2 of the mean over coordinates of the SD across neutral entries (chis stability). Raw: its null is the probe noise, derived per scripted system in docs/protocol.md.',
    inputs: 'arms A, B, A2, B2; the later checkpoints (condition neutral)',
  },
  recovery: {
    definition:
      '1 - D(pre, post) / D(pre, fault) around the reversible fault (chis recovery). Raw: its null is derived per scripted system in docs/protocol.md.',
    inputs: 'arm A.fault; the checkpoints before, at and after the fault',
  },
  plasticity: {
    definition:
      "Excess plasticity: plasticityRaw - plasticityFloor, the correction's effect relative to the matched control beyond what two instances under one treatment differ by.",
    inputs: 'arms A.correct, A.matched, A.correct2, A.matched2 around the plasticity checkpoint',
  },
  plasticityRaw: {
    definition:
      'Mean |(I_after - I_before) - (C_after - C_before)| of the correction against the matched non-correcting update (chis plasticity).',
    inputs:
      'arms A.correct (intervention) and A.matched (control) around the plasticity checkpoint',
  },
  plasticityFloor: {
    definition:
      'Mean of the same quantity between two instances under the same treatment: (P(A.correct, A.correct2) + P(A.matched, A.matched2)) / 2 (chis replicateChange).',
    inputs: 'arms A.correct, A.correct2, A.matched, A.matched2 around the plasticity checkpoint',
  },
  hysteresis: {
    definition:
      'Excess hysteresis: hysteresisRaw - hysteresisFloor, path dependence beyond what two instances of one path differ by.',
    inputs: 'arms AB, BA, AB2, BA2 at the primary checkpoint',
  },
  hysteresisRaw: {
    definition:
      'D between exposure A-then-B and B-then-A at the primary checkpoint: the same current conditions reached through different paths (chis hysteresis).',
    inputs: 'arms AB and BA at the primary checkpoint',
  },
  hysteresisFloor: {
    definition:
      '(D(AB, AB2) + D(BA, BA2)) / 2 at the primary checkpoint: the distance of two instances of the same path.',
    inputs: 'arms AB, AB2, BA, BA2 at the primary checkpoint',
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
  /**
   * The family-wise (simultaneous) band of the estimate's family (the grid, or the dynamics
   * table, of its system): max-|t| over the family from the same bootstrap replicates. Null when
   * the estimate has no interval.
   */
  readonly simultaneousLower: number | null;
  readonly simultaneousUpper: number | null;
}

/** The critical value and size of one family of simultaneous bands. */
export interface DivergenceFamily {
  /** The level quantile of max |t| over the family's cells (null: no cell has a spread). */
  readonly critical: number | null;
  /** Cells that entered the maximum. */
  readonly familySize: number;
  readonly level: number;
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
  /**
   * The two families with simultaneous bands: every series at every checkpoint (the grid), and
   * every dynamic. A pointwise interval is not a claim; the simultaneous band is.
   */
  readonly familyWise: {
    readonly grid: DivergenceFamily;
    readonly dynamics: DivergenceFamily;
  };
  /**
   * Task accuracy (`profile.accuracy`: the share of the primary choices answered as the arm's
   * history warrants) per arm and checkpoint, bootstrapped with the same world multisets as the
   * dynamics: the task outcomes that accompany them.
   */
  readonly taskAccuracy: readonly TaskAccuracyCell[];
}

/** The task accuracy of one arm at one checkpoint. */
export interface TaskAccuracyCell {
  readonly arm: string;
  readonly checkpoint: number;
  readonly value: DivergenceEstimate;
}

/** The per-world name of the task accuracy of an arm at a checkpoint. */
export function taskAccuracyName(arm: string, checkpoint: number): string {
  return `accuracy:${arm}@${checkpoint}`;
}

/** The whole analysis (`divergence.json` of the release). */
export interface DivergenceAnalysis {
  readonly kind: 'divergence-analysis';
  readonly protocol: string;
  readonly manifestSha256: string;
  /** Read from the manifest, never from code. */
  readonly primaryCheckpoint: number;
  /** The manifest's analysis settings and how every interval was read from the replicates. */
  readonly analysis: DivergenceManifest['analysis'] & {
    readonly intervalMethod: DivergenceIntervalMethod;
  };
  readonly seriesDefinitions: typeof SERIES_DEFINITIONS;
  /**
   * Instances (system, world, arm) whose trajectory an infrastructure failure or an abandoned
   * request ended: excluded from every series and dynamic, each with its reason.
   */
  readonly excludedInstances: readonly ExcludedInstance[];
  readonly systems: readonly DivergenceSystemResult[];
  /**
   * Arms not run on a system (memory policy `system` without the state control they need), each
   * with the reason; every series and dynamic reading one is null with that reason. Absent when
   * every arm ran.
   */
  readonly notApplicableArms?: readonly NotApplicableArm[];
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

function guarded(compute: () => WorldValue): WorldValue {
  try {
    return compute();
  } catch (error) {
    return { value: null, reason: (error as Error).message };
  }
}

/** `raw - floor`, with both beside it: the three rows of one history-dependence quantity. */
function withFloor(
  name: 'continuity' | 'drift' | 'plasticity' | 'hysteresis',
  raw: WorldValue,
  floor: WorldValue,
): [DivergenceDynamic, WorldValue][] {
  return [
    [name, combine([raw, floor], ([r, f]) => (r ?? 0) - (f ?? 0))],
    [`${name}Raw`, raw],
    [`${name}Floor`, floor],
  ];
}

/** Mean of world values; null (with the first reason) when any is null. */
function meanOf(parts: readonly WorldValue[]): WorldValue {
  return combine(parts, (values) => values.reduce((sum, v) => sum + v, 0) / values.length);
}

/** Continuity and its same-history floor over the neutral (later) checkpoints. */
function continuityRows(
  trajectories: Trajectories,
  manifest: DivergenceManifest,
): [DivergenceDynamic, WorldValue][] {
  const neutral = manifest.checkpoints.filter(({ phase }) => phase === 'later');
  const floor = meanOf(
    neutral.map(({ checkpoint }) =>
      combine(
        [
          distance(trajectories, 'A', 'A2', checkpoint),
          distance(trajectories, 'B', 'B2', checkpoint),
        ],
        ([aa, bb]) => 1 - ((aa ?? 0) + (bb ?? 0)) / 2,
      ),
    ),
  );
  const raw = overMainArms(trajectories, (entries) => fromDynamic(continuity(entries)));
  return withFloor('continuity', raw, floor);
}

/** Drift and its floor: the baseline distance of same-history instances. */
function driftRows(
  trajectories: Trajectories,
  manifest: DivergenceManifest,
): [DivergenceDynamic, WorldValue][] {
  const baseline = manifest.checkpoints.find(({ phase }) => phase === 'baseline')?.checkpoint ?? 0;
  const raw = overMainArms(trajectories, (entries) =>
    fromDynamic(drift(entries, { target: { checkpoint: manifest.primaryCheckpoint } })),
  );
  const floor = meanOf([
    distance(trajectories, 'A', 'A2', baseline),
    distance(trajectories, 'B', 'B2', baseline),
  ]);
  return withFloor('drift', raw, floor);
}

/** Plasticity against the matched control, and its same-treatment floor. */
function plasticityRows(
  trajectories: Trajectories,
  manifest: DivergenceManifest,
): [DivergenceDynamic, WorldValue][] {
  const window = {
    before: manifest.operations.plasticityAt - 1,
    after: manifest.operations.plasticityAt,
  };
  const arm = (id: string) => trajectories.get(id) ?? [];
  const raw = unlessExcluded(trajectories, ['A.correct', 'A.matched'], () =>
    guarded(() => fromDynamic(plasticity(arm('A.correct'), arm('A.matched'), window))),
  );
  const pair = (x: string, y: string) =>
    unlessExcluded(trajectories, [x, y], () =>
      guarded(() => fromDynamic(replicateChange(arm(x), arm(y), window))),
    );
  const floor = meanOf([pair('A.correct', 'A.correct2'), pair('A.matched', 'A.matched2')]);
  return withFloor('plasticity', raw, floor);
}

/** Hysteresis between the two exposure orders, and its same-path floor. */
function hysteresisRows(
  trajectories: Trajectories,
  manifest: DivergenceManifest,
): [DivergenceDynamic, WorldValue][] {
  const primary = manifest.primaryCheckpoint;
  const raw = unlessExcluded(trajectories, ['AB', 'BA'], () =>
    guarded(() =>
      fromDynamic(
        hysteresis(trajectories.get('AB') ?? [], trajectories.get('BA') ?? [], {
          checkpoint: primary,
        }),
      ),
    ),
  );
  const floor = meanOf([
    distance(trajectories, 'AB', 'AB2', primary),
    distance(trajectories, 'BA', 'BA2', primary),
  ]);
  return withFloor('hysteresis', raw, floor);
}

function dynamicsOf(
  trajectories: Trajectories,
  manifest: DivergenceManifest,
): Map<DivergenceDynamic, WorldValue> {
  const primary = manifest.primaryCheckpoint;
  return new Map<DivergenceDynamic, WorldValue>([
    ['experienceDivergence', seriesAt(trajectories, primary).get('excess') as WorldValue],
    ...continuityRows(trajectories, manifest),
    ...driftRows(trajectories, manifest),
    ['stability', overMainArms(trajectories, (entries) => fromDynamic(stability(entries)))],
    [
      'recovery',
      unlessExcluded(trajectories, ['A.fault'], () =>
        guarded(() => fromDynamic(recovery(trajectories.get('A.fault') ?? []))),
      ),
    ],
    ...plasticityRows(trajectories, manifest),
    ...hysteresisRows(trajectories, manifest),
    [
      'memoryAccumulation',
      overMainArms(trajectories, (entries) =>
        fromDynamic(memoryAccumulation(entries, { feature: 'washoutKnown' })),
      ),
    ],
  ]);
}

function taskAccuracyOf(
  trajectories: Trajectories,
  manifest: DivergenceManifest,
): Map<string, WorldValue> {
  const values = new Map<string, WorldValue>();
  for (const arm of manifest.arms)
    for (const { checkpoint } of manifest.checkpoints)
      values.set(
        taskAccuracyName(arm.id, checkpoint),
        unlessExcluded(trajectories, [arm.id], () => {
          const entry = lastAt(trajectories.get(arm.id), checkpoint);
          return entry === null
            ? { value: null, reason: `${arm.id} has no probe at checkpoint ${checkpoint}` }
            : { value: entry.profile.accuracy ?? null, reason: null };
        }),
      );
  return values;
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
  for (const [name, value] of taskAccuracyOf(byArm, manifest)) values.set(name, value);
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

const round = (value: number | null) => (value === null ? null : Math.round(value * 1e9) / 1e9);

/** One statistic's pointwise interval as the manifest's method reads it, or why it has none. */
interface Pointwise {
  readonly estimate: number | null;
  readonly interval: { readonly lower: number; readonly upper: number } | null;
  readonly omittedReason: string | null;
}

/** The method a manifest freezes; a manifest from before it was recorded keeps its method. */
export function divergenceIntervalMethod(manifest: DivergenceManifest): DivergenceIntervalMethod {
  return manifest.analysis.intervalMethod ?? LEGACY_DIVERGENCE_INTERVAL_METHOD;
}

/**
 * The pointwise intervals of every statistic: the bootstrap's own (percentile or expanded
 * percentile) or, for `'studentized'`, bootstrap-t over the same worlds, seed and resamples
 * (`studentizedClusterMeans`: the same multisets as `clusterBootstrap`). The estimates are the
 * bootstrap's either way.
 */
function pointwiseIntervals(
  manifest: DivergenceManifest,
  names: readonly string[],
  boot: Readonly<Record<string, BootstrapEstimate>>,
  clusters: readonly WorldCluster[],
): Map<string, Pointwise> {
  const fromBoot = (name: string): Pointwise => {
    const found = boot[name] as BootstrapEstimate;
    return {
      estimate: found.estimate,
      interval: found.interval,
      omittedReason: found.intervalOmittedReason,
    };
  };
  if (divergenceIntervalMethod(manifest) !== 'studentized' || names.length === 0)
    return new Map(names.map((name) => [name, fromBoot(name)]));
  const studentized = studentizedClusterMeans({
    values: Object.fromEntries(
      names.map((name) => [
        name,
        clusters.map((cluster) => cluster.values.get(name)?.value ?? null),
      ]),
    ),
    seed: manifest.analysis.seed,
    resamples: manifest.analysis.resamples,
    level: manifest.analysis.level,
  });
  return new Map(
    names.map((name): [string, Pointwise] => {
      const own = studentized[name];
      const { estimate } = fromBoot(name);
      if (estimate === null || own?.interval == null)
        return [
          name,
          { estimate, interval: null, omittedReason: 'fewer than two worlds define it' },
        ];
      return [name, { estimate, interval: own.interval, omittedReason: null }];
    }),
  );
}

function toEstimate(
  name: string,
  estimate: Pointwise,
  clusters: readonly WorldCluster[],
  band: SimultaneousBand | null,
): DivergenceEstimate {
  const defined = clusters.filter((cluster) => cluster.values.get(name)?.value != null);
  const firstReason = clusters
    .find((cluster) => cluster.values.get(name)?.value == null)
    ?.values.get(name)?.reason;
  // Too few defined worlds for an interval (docs/protocol.md): the estimate stays, the interval
  // and the band go, and the reason says how many worlds would give one.
  const tooFew = notEstimableReason(defined.length, clusters.length);
  const interval = tooFew === null ? estimate.interval : null;
  const omittedReason = tooFew ?? estimate.omittedReason;
  const banded = interval === null ? null : band;
  return {
    estimate: round(estimate.estimate),
    lower: round(interval?.lower ?? null),
    upper: round(interval?.upper ?? null),
    worlds: defined.length,
    plannedWorlds: clusters.length,
    reason:
      estimate.estimate === null
        ? (firstReason ?? 'undefined in every world')
        : interval === null
          ? `no interval: ${omittedReason}`
          : null,
    simultaneousLower: round(banded?.lower ?? null),
    simultaneousUpper: round(banded?.upper ?? null),
  };
}

/** The simultaneous bands of a family of names, from the bootstrap's own replicates. */
function familyBands(
  names: readonly string[],
  boot: Readonly<Record<string, BootstrapEstimate>>,
  replicates: readonly Readonly<Record<string, number | null>>[],
  level: number,
): { family: DivergenceFamily; bands: Map<string, SimultaneousBand | null> } {
  const result = simultaneousBands({
    estimates: names.map((name) => boot[name]?.estimate ?? null),
    replicates: replicates.map((row) => names.map((name) => row[name] ?? null)),
    level,
  });
  return {
    family: { critical: round(result.critical), familySize: result.familySize, level },
    bands: new Map(names.map((name, index) => [name, result.bands[index] ?? null])),
  };
}

function clustersOf(
  manifest: DivergenceManifest,
  systemId: string,
  entries: readonly ChisEntry[],
  excluded: readonly ExcludedInstance[],
): WorldCluster[] {
  const system = manifest.systems.find((candidate) => candidate.id === systemId);
  const inapplicable = system === undefined ? [] : notApplicableArms([system], manifest.arms);
  return manifest.worldSeeds.map((seed) => {
    const mine = [
      ...excluded.filter(
        (instance) => instance.systemId === systemId && instance.worldSeed === seed,
      ),
      ...inapplicable.map((arm) => ({ arm: arm.arm, reason: arm.reason })),
    ];
    return clusterOf(
      manifest,
      seed,
      entries.filter(
        (entry) =>
          entry.systemId === systemId &&
          entry.worldSeed === seed &&
          !mine.some((instance) => instance.arm === entry.history),
      ),
      new Map(mine.map((instance) => [instance.arm, instance.reason])),
    );
  });
}

/** One system's trajectory and dynamics with pointwise intervals and simultaneous bands. */
function analyzeSystem(
  manifest: DivergenceManifest,
  system: DivergenceManifest['systems'][number],
  clusters: readonly WorldCluster[],
): DivergenceSystemResult {
  const names = [...(clusters[0]?.values.keys() ?? [])];
  // Every call of the statistic, in order: the original sample, then each replicate.
  const outputs: Record<string, number | null>[] = [];
  const method = divergenceIntervalMethod(manifest);
  const boot = clusterBootstrap({
    clusters,
    seed: manifest.analysis.seed,
    resamples: manifest.analysis.resamples,
    level: manifest.analysis.level,
    // The bands read the replicates, never the pointwise method; 'studentized' is read below.
    ...(method === 'studentized' ? {} : { method }),
    statistic: (sample) => {
      const output = Object.fromEntries(names.map((name) => [name, meanDefined(sample, name)]));
      outputs.push(output);
      return output;
    },
  });
  const replicates = outputs.slice(1);
  const pointwise = pointwiseIntervals(manifest, names, boot, clusters);
  const level = manifest.analysis.level;
  // The grid family is the divergence series at every checkpoint; task accuracy accompanies the
  // dynamics (pointwise) and is not part of the family.
  // A cell without an interval (too few defined worlds) does not enter its family's maximum.
  const estimable = (name: string) => {
    const defined = clusters.filter((cluster) => cluster.values.get(name)?.value != null).length;
    return notEstimableReason(defined, clusters.length) === null;
  };
  const grid = familyBands(
    names.filter((name) => name.includes('@') && !name.startsWith('accuracy:') && estimable(name)),
    boot,
    replicates,
    level,
  );
  const table = familyBands(DIVERGENCE_DYNAMICS.filter(estimable), boot, replicates, level);
  const estimate = (name: string, bands: Map<string, SimultaneousBand | null>) =>
    toEstimate(name, pointwise.get(name) as Pointwise, clusters, bands.get(name) ?? null);
  return {
    systemId: system.id,
    evidenceClass: system.evidenceClass,
    trajectory: manifest.checkpoints.map(({ checkpoint, phase }) => ({
      checkpoint,
      phase,
      series: Object.fromEntries(
        DIVERGENCE_SERIES.map((series) => [
          series,
          estimate(`${series}@${checkpoint}`, grid.bands),
        ]),
      ) as Record<DivergenceSeries, DivergenceEstimate>,
    })),
    dynamics: DIVERGENCE_DYNAMICS.map((name) => ({
      name,
      ...DYNAMIC_DEFINITIONS[name],
      value: estimate(name, table.bands),
    })),
    familyWise: { grid: grid.family, dynamics: table.family },
    taskAccuracy: manifest.arms.flatMap((arm) =>
      manifest.checkpoints.map(({ checkpoint }) => ({
        arm: arm.id,
        checkpoint,
        value: estimate(taskAccuracyName(arm.id, checkpoint), grid.bands),
      })),
    ),
  };
}

/** One world's value of one statistic of one system (a row of `divergence-worlds.csv`). */
export interface DivergenceWorldValue {
  readonly systemId: string;
  /** `excess@6`, `plasticity`, `accuracy:A@1`: the names of the analysis. */
  readonly statistic: string;
  readonly worldSeed: number;
  /** Null when undefined in this world: the world is then outside the statistic's world set. */
  readonly value: number | null;
  readonly reason: string | null;
}

/**
 * Every per-world value the analysis averages (before rounding), per system, statistic and
 * planned world, in manifest order: each estimate is the mean of its defined values, and its
 * world set is the worlds where the value is defined.
 */
export function divergenceWorldValues(
  manifest: DivergenceManifest,
  entries: readonly ChisEntry[],
  excluded: readonly ExcludedInstance[] = [],
): DivergenceWorldValue[] {
  return manifest.systems.flatMap((system) => {
    const clusters = clustersOf(manifest, system.id, entries, excluded);
    const names = [...(clusters[0]?.values.keys() ?? [])];
    return names.flatMap((statistic) =>
      clusters.map((cluster) => {
        const found = cluster.values.get(statistic);
        return {
          systemId: system.id,
          statistic,
          worldSeed: cluster.seed,
          value: found?.value ?? null,
          reason: found?.value == null ? (found?.reason ?? 'undefined') : null,
        };
      }),
    );
  });
}

/**
 * Analyzes a divergence run's CHIS entries: per system, every series at every checkpoint of the
 * manifest and every dynamic, each the mean over the worlds where it is defined, with pointwise
 * intervals (the manifest's method, `analysis.intervalMethod`: studentized for new manifests,
 * expanded percentile for manifests frozen before it was recorded) from one clustered
 * bootstrap over worlds per system (one multiset per replicate for every checkpoint, arm and
 * dynamic: pairing preserved), and simultaneous max-|t| bands over two families per system (the
 * grid of series x checkpoints, the dynamics table) from the same replicates. The primary
 * checkpoint is the manifest's.
 */
export function analyzeDivergence(
  manifest: DivergenceManifest,
  manifestSha256: string,
  entries: readonly ChisEntry[],
  excluded: readonly ExcludedInstance[] = [],
): DivergenceAnalysis {
  const systems = manifest.systems.map((system) =>
    analyzeSystem(manifest, system, clustersOf(manifest, system.id, entries, excluded)),
  );
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
      intervalMethod: divergenceIntervalMethod(manifest),
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
    // Absent when every arm ran on every system, so such a release keeps its bytes.
    ...notApplicableField(manifest),
  };
}

function notApplicableField(manifest: DivergenceManifest): {
  notApplicableArms?: NotApplicableArm[];
} {
  const arms = notApplicableArms(manifest.systems, manifest.arms);
  return arms.length === 0 ? {} : { notApplicableArms: arms };
}

/**
 * An estimate as the release's Markdown and HTML print it: the value with its pointwise interval
 * (or why it has none), its simultaneous band (`sim.`) when it has one, and the worlds it used,
 * or null with the reason.
 */
export function formatEstimate(value: DivergenceEstimate): string {
  if (value.estimate === null) return `null (${value.reason ?? 'undefined'})`;
  const interval =
    value.lower === null || value.upper === null
      ? ` (${value.reason ?? 'no interval'})`
      : ` [${value.lower.toFixed(3)}, ${value.upper.toFixed(3)}]`;
  const band =
    value.simultaneousLower === null || value.simultaneousUpper === null
      ? ''
      : ` sim. [${value.simultaneousLower.toFixed(3)}, ${value.simultaneousUpper.toFixed(3)}]`;
  return `${value.estimate.toFixed(3)}${interval}${band}, ${value.worlds}/${value.plannedWorlds} worlds`;
}

/** The family-wise statement of the release (Markdown and HTML), one sentence. */
export const FAMILY_WISE_STATEMENT =
  'Bracketed intervals are pointwise 95% intervals (the method named above) from the clustered bootstrap over worlds (one multiset per replicate for every checkpoint, arm and dynamic): a pointwise interval is not a claim. "sim." is the simultaneous 95% band of its family (per system: the grid of every series at every checkpoint, and the dynamics table), max-|t| over the family from the same replicates (each cell studentized by its bootstrap SD; band = estimate +- q SD, q per family below); read an effect as shown only when its simultaneous band excludes 0.';

/** The critical values of a system's families, as the release prints them. */
export function formatFamilies(system: DivergenceSystemResult): string {
  const one = (name: string, family: DivergenceFamily) =>
    `${name}: q = ${family.critical === null ? 'none (no cell varies)' : family.critical.toFixed(3)} over ${family.familySize} cells`;
  return `Simultaneous ${Math.round(system.familyWise.grid.level * 100)}% bands, ${one('grid', system.familyWise.grid)}; ${one('dynamics', system.familyWise.dynamics)}.`;
}
