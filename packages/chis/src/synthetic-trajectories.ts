import { type ChisEntry, InvalidArgumentError } from '@chi/spec';
import { IsoTimeSchema } from '@chi/spec/internal';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import type { RandomGenerator } from 'pure-rand/types/RandomGenerator';

/**
 * The trajectories of one synthetic replicate, in generation order. Every trajectory starts at
 * checkpoint 0 (`baseline`) and shares the same drift; each role adds one planted effect:
 * - `control`: neutral from checkpoint 1 on (continuity, drift, stability, memory accumulation);
 * - `intervention`: `interventionEffect` added at `interventionAt` and kept (plasticity vs control);
 * - `fault`: `fault.size` added at `fault.at`, of which `fault.recoveryFraction` is undone at the next
 *   checkpoint (condition `recovery`) and the rest kept (recovery);
 * - `reversal`: the intervention at `interventionAt`, reversed at the next checkpoint (condition
 *   `reversal`) except for `pathDependence`, then neutral (hysteresis vs control, same final condition);
 * - `history-A`, `history-B`, `history-A2`: history ingested at checkpoint 1 (condition `history`);
 *   B is shifted by `historyEffect`, A2 repeats A (experience divergence).
 */
export const SYNTHETIC_ROLES = [
  'control',
  'intervention',
  'fault',
  'reversal',
  'history-A',
  'history-B',
  'history-A2',
] as const;
/** One trajectory role of a synthetic replicate. */
export type SyntheticRole = (typeof SYNTHETIC_ROLES)[number];

/** A reversible fault: a displacement at checkpoint `at`, partly undone at `at + 1`. */
export interface SyntheticFault {
  /** Checkpoint of the fault (>= 1, and < the last checkpoint). */
  readonly at: number;
  /** Displacement added to every decision coordinate at the fault. */
  readonly size: number;
  /** Fraction of the displacement undone at the next checkpoint (1 = full recovery). */
  readonly recoveryFraction: number;
}

/** Planted parameters of {@link generateSyntheticTrajectories}. */
export interface SyntheticTrajectoryOptions {
  /** Unsigned 32-bit seed. */
  readonly seed: number;
  /** Latent decision vector at checkpoint 0: one value for every coordinate, or one per coordinate. */
  readonly baseline: number | readonly number[];
  /** Change per event added to every latent coordinate, on every trajectory. */
  readonly driftRate: number;
  /** Shift added to every coordinate by the intervention, kept afterwards. */
  readonly interventionEffect: number;
  /** Standard deviation of the observation noise of every coordinate and indicator (>= 0). */
  readonly noise: number;
  readonly fault: SyntheticFault;
  /** Shift left on the `reversal` trajectory after its intervention is reversed. */
  readonly pathDependence: number;
  /** Shift of history B relative to A from checkpoint 1 on (default 0). */
  readonly historyEffect?: number;
  /** Change per event of the profile indicator `usableItems` (default 0). */
  readonly accumulationRate?: number;
  /** Independent replicates, each a full set of roles with its own world seed (default 1). */
  readonly replicates?: number;
  /** Checkpoints run from 0 to this (default 6). */
  readonly lastCheckpoint?: number;
  /** Decision coordinates when `baseline` is a single number (default 4). */
  readonly coordinates?: number;
  /** Events per checkpoint (default 1): checkpoint c has event count c * eventsPerCheckpoint. */
  readonly eventsPerCheckpoint?: number;
  /** Checkpoint of the intervention on `intervention` and `reversal` (default 2). */
  readonly interventionAt?: number;
  /** System identifier written on every entry (default `synthetic`). */
  readonly systemId?: string;
  /** `recordedAt` of checkpoint 0 (default `2026-01-01T00:00:00.000Z`). */
  readonly startTime?: string;
  /** Wall time between checkpoints (default one hour). */
  readonly checkpointIntervalMs?: number;
}

/** The parameters as resolved (defaults filled, baseline expanded to a vector). */
export interface SyntheticPlanted {
  readonly seed: number;
  readonly baseline: readonly number[];
  readonly driftRate: number;
  readonly interventionEffect: number;
  readonly noise: number;
  readonly fault: SyntheticFault;
  readonly pathDependence: number;
  readonly historyEffect: number;
  readonly accumulationRate: number;
  readonly replicates: number;
  readonly lastCheckpoint: number;
  readonly eventsPerCheckpoint: number;
  readonly interventionAt: number;
}

/**
 * The value each dynamic should recover from one replicate, derived analytically from the planted
 * parameters (never by running the dynamics). With `noise` 0 the dynamics return exactly these;
 * with noise, distance-based values carry a noise floor (see the README).
 */
export interface SyntheticExpectedDynamics {
  /** `continuity(control)`: 1 - |driftRate| * eventsPerCheckpoint. */
  readonly continuity: number;
  /** `drift(control)` (checkpoint 0 to the last): |driftRate| * eventsPerCheckpoint * lastCheckpoint. */
  readonly drift: number;
  /** `drift(control).perEvent`: |driftRate|. */
  readonly driftPerEvent: number;
  /** `plasticity(intervention, control)`: |interventionEffect|. */
  readonly plasticity: number;
  /**
   * `stability(control)` over the neutral checkpoints 1..T: the SD whose square the sample variance
   * estimates, sqrt(d^2 * T(T+1)/12 + noise^2) with d the drift per checkpoint.
   */
  readonly stability: number;
  /**
   * `recovery(fault)`: 1 - |2d + size(1 - r)| / |d + size| (d the drift per checkpoint, r the
   * recovery fraction), which is r without drift; null when d + size = 0 (no deviation).
   */
  readonly recovery: number | null;
  /** `hysteresis(control, reversal)` at the last checkpoint: |pathDependence|. */
  readonly hysteresis: number;
  /** `memoryAccumulation(control, { feature: 'usableItems' })`: accumulationRate. */
  readonly memoryAccumulation: number;
  /** `experienceDivergence` of the history triples at any checkpoint >= 1: |historyEffect|. */
  readonly experienceDivergence: number;
}

/** The known truth of a synthetic set. */
export interface SyntheticGroundTruth {
  readonly planted: SyntheticPlanted;
  readonly expected: SyntheticExpectedDynamics;
  /** Observed decision coordinates clamped into [0, 1] (clamping biases every distance; keep it 0). */
  readonly clampedObservations: number;
}

/** The trajectory IDs of one replicate. */
export interface SyntheticReplicate {
  readonly index: number;
  /** World seed written on its entries: the replicate index. */
  readonly worldSeed: number;
  readonly trajectoryIds: Readonly<Record<SyntheticRole, string>>;
}

/** Synthetic CHIS entries (evidence class `synthetic`) and their ground truth. */
export interface SyntheticTrajectories {
  /** All entries: replicate by replicate, role by role, checkpoint by checkpoint. */
  readonly entries: ChisEntry[];
  readonly replicates: readonly SyntheticReplicate[];
  readonly groundTruth: SyntheticGroundTruth;
}

const TWO_POW_32 = 4294967296;

/**
 * Approximately standard normal noise: the sum of 12 uniforms minus 6 (Irwin-Hall), mean 0,
 * variance 1, bounded by +-6. It uses only additions of exact binary fractions, so every engine
 * produces the same bits (Box-Muller's log and cos are not guaranteed to).
 */
function standardNoise(rng: RandomGenerator): number {
  let sum = 0;
  for (let k = 0; k < 12; k++) sum += (rng.next() >>> 0) / TWO_POW_32;
  return sum - 6;
}

function finite(name: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw new InvalidArgumentError(
      name,
      `expected a finite number, found ${JSON.stringify(value)}`,
    );
  }
  return value;
}

function integerAtLeast(name: string, value: unknown, minimum: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < minimum) {
    throw new InvalidArgumentError(
      name,
      `expected an integer >= ${minimum}, found ${JSON.stringify(value)}`,
    );
  }
  return value;
}

function resolvePlanted(options: SyntheticTrajectoryOptions): SyntheticPlanted {
  const seed = integerAtLeast('seed', options.seed, 0);
  if (seed > 0xffffffff)
    throw new InvalidArgumentError('seed', `expected an unsigned 32-bit integer, found ${seed}`);
  const lastCheckpoint = integerAtLeast('lastCheckpoint', options.lastCheckpoint ?? 6, 3);
  const interventionAt = integerAtLeast('interventionAt', options.interventionAt ?? 2, 1);
  if (interventionAt + 2 > lastCheckpoint) {
    throw new InvalidArgumentError(
      'interventionAt',
      `expected at most lastCheckpoint - 2 = ${lastCheckpoint - 2} (the reversal and one neutral checkpoint follow), found ${interventionAt}`,
    );
  }
  const fault = options.fault;
  if (typeof fault !== 'object' || fault === null) {
    throw new InvalidArgumentError(
      'fault',
      `expected { at, size, recoveryFraction }, found ${JSON.stringify(fault)}`,
    );
  }
  const faultAt = integerAtLeast('fault.at', fault.at, 1);
  if (faultAt >= lastCheckpoint) {
    throw new InvalidArgumentError(
      'fault.at',
      `expected a checkpoint below lastCheckpoint (${lastCheckpoint}), found ${faultAt}`,
    );
  }
  const noise = finite('noise', options.noise);
  if (noise < 0)
    throw new InvalidArgumentError('noise', `expected a standard deviation >= 0, found ${noise}`);
  let baseline: number[];
  if (typeof options.baseline === 'number') {
    const coordinates = integerAtLeast('coordinates', options.coordinates ?? 4, 1);
    baseline = Array.from({ length: coordinates }, () => finite('baseline', options.baseline));
  } else if (Array.isArray(options.baseline) && options.baseline.length > 0) {
    baseline = options.baseline.map((value, index) => finite(`baseline[${index}]`, value));
  } else {
    throw new InvalidArgumentError(
      'baseline',
      `expected a number or a non-empty array, found ${JSON.stringify(options.baseline)}`,
    );
  }
  return {
    seed,
    baseline,
    driftRate: finite('driftRate', options.driftRate),
    interventionEffect: finite('interventionEffect', options.interventionEffect),
    noise,
    fault: {
      at: faultAt,
      size: finite('fault.size', fault.size),
      recoveryFraction: finite('fault.recoveryFraction', fault.recoveryFraction),
    },
    pathDependence: finite('pathDependence', options.pathDependence),
    historyEffect: finite('historyEffect', options.historyEffect ?? 0),
    accumulationRate: finite('accumulationRate', options.accumulationRate ?? 0),
    replicates: integerAtLeast('replicates', options.replicates ?? 1, 1),
    lastCheckpoint,
    eventsPerCheckpoint: integerAtLeast('eventsPerCheckpoint', options.eventsPerCheckpoint ?? 1, 1),
    interventionAt,
  };
}

/** The planted shift of a role at a checkpoint, on top of baseline + drift. */
function plantedShift(planted: SyntheticPlanted, role: SyntheticRole, checkpoint: number): number {
  const { interventionAt, fault } = planted;
  switch (role) {
    case 'intervention':
      return checkpoint >= interventionAt ? planted.interventionEffect : 0;
    case 'fault':
      if (checkpoint === fault.at) return fault.size;
      return checkpoint > fault.at ? fault.size * (1 - fault.recoveryFraction) : 0;
    case 'reversal':
      if (checkpoint === interventionAt) return planted.interventionEffect;
      return checkpoint > interventionAt ? planted.pathDependence : 0;
    case 'history-B':
      return checkpoint >= 1 ? planted.historyEffect : 0;
    default:
      return 0;
  }
}

function conditionOf(planted: SyntheticPlanted, role: SyntheticRole, checkpoint: number): string {
  if (checkpoint === 0) return 'baseline';
  const { interventionAt, fault } = planted;
  switch (role) {
    case 'intervention':
      return checkpoint === interventionAt ? 'intervention' : 'neutral';
    case 'fault':
      if (checkpoint === fault.at) return 'fault';
      return checkpoint === fault.at + 1 ? 'recovery' : 'neutral';
    case 'reversal':
      if (checkpoint === interventionAt) return 'intervention';
      return checkpoint === interventionAt + 1 ? 'reversal' : 'neutral';
    case 'control':
      return 'neutral';
    default:
      return checkpoint === 1 ? 'history' : 'neutral';
  }
}

function expectedDynamics(planted: SyntheticPlanted): SyntheticExpectedDynamics {
  const perCheckpoint = planted.driftRate * planted.eventsPerCheckpoint;
  const neutralCount = planted.lastCheckpoint;
  const { size, recoveryFraction } = planted.fault;
  const deviation = Math.abs(perCheckpoint + size);
  return {
    continuity: 1 - Math.abs(perCheckpoint),
    drift: Math.abs(perCheckpoint) * planted.lastCheckpoint,
    driftPerEvent: Math.abs(planted.driftRate),
    plasticity: Math.abs(planted.interventionEffect),
    stability: Math.sqrt(
      perCheckpoint ** 2 * ((neutralCount * (neutralCount + 1)) / 12) + planted.noise ** 2,
    ),
    recovery:
      deviation === 0
        ? null
        : 1 - Math.abs(2 * perCheckpoint + size * (1 - recoveryFraction)) / deviation,
    hysteresis: Math.abs(planted.pathDependence),
    memoryAccumulation: planted.accumulationRate,
    experienceDivergence: Math.abs(planted.historyEffect),
  };
}

/**
 * Generates synthetic CHIS trajectories with planted dynamics and their ground truth, for testing
 * and demonstrating the dynamics. Every entry is labelled evidence class `synthetic`; none is a
 * model result. Pure and deterministic: the same options give the same entries, bit for bit, on any
 * platform.
 *
 * Model: latent coordinate j of role R at checkpoint c is
 * `baseline[j] + driftRate * c * eventsPerCheckpoint + shift(R, c)` (see `SYNTHETIC_ROLES`);
 * the observed coordinate adds `noise * z` and is clamped into [0, 1] (counted in
 * `clampedObservations`). The profile holds `meanDecision` (mean observed coordinate) and
 * `usableItems = accumulationRate * eventCount + noise * z`.
 *
 * Randomness (pure-rand 8.4.2, the derivation `@chi/stats` uses): `rng = xoroshiro128plus(seed)`,
 * then `rng.jump()` once; z = sum of 12 draws `(rng.next() >>> 0) / 2^32`, minus 6. Draw order:
 * replicate, role (in SYNTHETIC_ROLES order), checkpoint, then the decision coordinates in order and
 * finally `usableItems`. Draws are made even when `noise` is 0, so noise does not shift the stream.
 *
 * @throws `InvalidArgumentError` for a bad parameter or when a latent coordinate leaves [0, 1].
 * @example
 * ```ts
 * const { entries, replicates, groundTruth } = generateSyntheticTrajectories({
 *   seed: 7, baseline: 0.3, driftRate: 0.01, interventionEffect: 0.2, noise: 0.02,
 *   fault: { at: 3, size: 0.3, recoveryFraction: 0.75 }, pathDependence: 0.1, historyEffect: 0.25,
 * });
 * ```
 */
export function generateSyntheticTrajectories(
  options: SyntheticTrajectoryOptions,
): SyntheticTrajectories {
  const planted = resolvePlanted(options);
  const systemId = options.systemId ?? 'synthetic';
  if (typeof systemId !== 'string' || systemId === '') {
    throw new InvalidArgumentError(
      'systemId',
      `expected a non-empty string, found ${JSON.stringify(systemId)}`,
    );
  }
  const startTime = options.startTime ?? '2026-01-01T00:00:00.000Z';
  if (!IsoTimeSchema.safeParse(startTime).success) {
    throw new InvalidArgumentError(
      'startTime',
      `expected an ISO-8601 UTC timestamp ending in Z, found ${JSON.stringify(startTime)}`,
    );
  }
  const startMs = Date.parse(startTime);
  const intervalMs = finite('checkpointIntervalMs', options.checkpointIntervalMs ?? 3_600_000);
  if (intervalMs < 0)
    throw new InvalidArgumentError('checkpointIntervalMs', `expected >= 0, found ${intervalMs}`);

  // Fail before drawing anything when the planted model itself leaves the decision scale.
  for (const role of SYNTHETIC_ROLES) {
    for (let checkpoint = 0; checkpoint <= planted.lastCheckpoint; checkpoint++) {
      const offset =
        planted.driftRate * checkpoint * planted.eventsPerCheckpoint +
        plantedShift(planted, role, checkpoint);
      planted.baseline.forEach((base, j) => {
        const latent = base + offset;
        if (latent < 0 || latent > 1) {
          throw new InvalidArgumentError(
            'baseline',
            `the latent decision coordinate ${j} of role ${role} is ${latent} at checkpoint ${checkpoint}, outside [0, 1]; move the baseline or shrink the planted effects`,
          );
        }
      });
    }
  }

  const rng = xoroshiro128plus(planted.seed);
  rng.jump();
  const entries: ChisEntry[] = [];
  const replicates: SyntheticReplicate[] = [];
  let clampedObservations = 0;
  for (let replicate = 0; replicate < planted.replicates; replicate++) {
    const trajectoryIds = Object.fromEntries(
      SYNTHETIC_ROLES.map((role) => [role, `synthetic-s${planted.seed}-r${replicate}-${role}`]),
    ) as Record<SyntheticRole, string>;
    replicates.push({ index: replicate, worldSeed: replicate, trajectoryIds });
    for (const role of SYNTHETIC_ROLES) {
      for (let checkpoint = 0; checkpoint <= planted.lastCheckpoint; checkpoint++) {
        const eventCount = checkpoint * planted.eventsPerCheckpoint;
        const offset = planted.driftRate * eventCount + plantedShift(planted, role, checkpoint);
        const decisionVector = planted.baseline.map((base) => {
          const observed = base + offset + planted.noise * standardNoise(rng);
          if (observed < 0 || observed > 1) clampedObservations += 1;
          return Math.min(1, Math.max(0, observed));
        });
        const usableItems =
          planted.accumulationRate * eventCount + planted.noise * standardNoise(rng);
        const elapsedWallMs = checkpoint * intervalMs;
        entries.push({
          kind: 'chis-entry',
          trajectoryId: trajectoryIds[role],
          systemId,
          evidenceClass: 'synthetic',
          worldSeed: replicate,
          history: role.startsWith('history-') ? role.slice('history-'.length) : null,
          checkpoint,
          condition: conditionOf(planted, role, checkpoint),
          recordedAt: new Date(startMs + elapsedWallMs).toISOString(),
          eventCount,
          scheduledOperations: checkpoint,
          elapsedWallMs,
          profile: {
            meanDecision: decisionVector.reduce((sum, x) => sum + x, 0) / decisionVector.length,
            usableItems,
          },
          decisionVector,
          chi: null,
          state: null,
          resources: {
            requests: checkpoint === 0 ? 0 : 1,
            promptTokens: null,
            completionTokens: null,
            costUsd: null,
            latencyMs: null,
          },
        });
      }
    }
  }
  return {
    entries,
    replicates,
    groundTruth: { planted, expected: expectedDynamics(planted), clampedObservations },
  };
}
