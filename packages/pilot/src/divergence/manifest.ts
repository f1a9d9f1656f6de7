import { canonicalJson, sha256Hex } from '@chi/run';
import {
  InvalidArgumentError,
  type DivergenceManifest as SpecDivergenceManifest,
  type SystemSpec,
} from '@chi/spec';
import { generatorInfo } from '@chi/worlds';
import { NOTEBOOK_CAP_BYTES } from '../notebook';
import { type PromptSet, promptRefs } from '../prompts';
import { defaultOfflineSettings } from '../settings';
import {
  armCalls,
  DIVERGENCE_ARMS,
  DIVERGENCE_CHECKPOINTS,
  DIVERGENCE_OPERATION_CHECKPOINTS,
  DIVERGENCE_PRIMARY_CHECKPOINT,
  DIVERGENCE_PROTOCOL_ID,
  divergenceRequestsPerWorld,
} from './protocol';

/**
 * The frozen manifest of a divergence run (`DivergenceManifestSchema` of `@chi/spec`): written and
 * hashed before the first request; the checkpoints, the primary checkpoint, the operations and the
 * arms are preregistered here and the analysis reads them from here (never from code constants).
 */
export type DivergenceManifest = SpecDivergenceManifest;

/** The budget and transport settings of a live divergence run (the default pilot's defaults). */
export interface DivergenceLiveSettings {
  /** USD ceiling of the scored requests; 0 for scripted systems only. */
  readonly ceilingUsd: number;
  readonly deadlineMs: number;
  readonly maxRetries: number;
  readonly retryAfterCapMs: number;
  readonly reservationMargin: number;
  readonly requireSmoke: boolean;
}

/** Defaults of {@link DivergenceLiveSettings}: the default pilot's (`defaultOfflineSettings`). */
export function divergenceLiveDefaults(systems: readonly SystemSpec[]): DivergenceLiveSettings {
  const base = defaultOfflineSettings();
  return {
    ceilingUsd: 0,
    deadlineMs: base.deadlineMs,
    maxRetries: base.maxRetries,
    retryAfterCapMs: base.retryAfterCapMs,
    reservationMargin: base.reservationMargin,
    requireSmoke: systems.some((system) => system.kind !== 'scripted'),
  };
}

/** Options of {@link buildDivergenceManifest}. */
export interface DivergenceManifestOptions {
  readonly worldSeeds: readonly number[];
  readonly systems: readonly SystemSpec[];
  readonly prompts: PromptSet;
  readonly createdAt: string;
  readonly analysisSeed: number;
  readonly resamples?: number;
  /** Budget and transport; default {@link divergenceLiveDefaults}. */
  readonly live?: Partial<DivergenceLiveSettings>;
}

/** Builds the manifest (pure). Throws on an empty or duplicated seed or system list. */
export function buildDivergenceManifest(options: DivergenceManifestOptions): DivergenceManifest {
  if (options.worldSeeds.length === 0)
    throw new InvalidArgumentError('worldSeeds', 'expected at least one world seed, found none');
  if (new Set(options.worldSeeds).size !== options.worldSeeds.length)
    throw new InvalidArgumentError('worldSeeds', 'world seeds must be distinct');
  const ids = options.systems.map((system) => system.id);
  if (ids.length === 0 || new Set(ids).size !== ids.length)
    throw new InvalidArgumentError('systems', 'expected at least one system, with distinct IDs');
  const perWorld = divergenceRequestsPerWorld();
  const live = { ...divergenceLiveDefaults(options.systems), ...options.live };
  if (!Number.isFinite(live.ceilingUsd) || live.ceilingUsd < 0)
    throw new InvalidArgumentError(
      'ceilingUsd',
      `expected a USD amount >= 0, found ${String(live.ceilingUsd)}`,
    );
  return {
    kind: 'divergence-manifest',
    protocol: DIVERGENCE_PROTOCOL_ID,
    createdAt: options.createdAt,
    generator: generatorInfo(),
    worldSeeds: [...options.worldSeeds],
    systems: [...options.systems],
    checkpoints: DIVERGENCE_CHECKPOINTS.map((point) => ({ ...point })),
    primaryCheckpoint: DIVERGENCE_PRIMARY_CHECKPOINT,
    operations: DIVERGENCE_OPERATION_CHECKPOINTS,
    arms: DIVERGENCE_ARMS.map((arm) => ({ ...arm, exposure: [...arm.exposure] })),
    notebookCapBytes: NOTEBOOK_CAP_BYTES,
    prompts: promptRefs(options.prompts).filter(
      (ref) => ref.name === 'system' || ref.name.startsWith('history-'),
    ),
    requestsPerWorldPerSystem: perWorld,
    totalRequests: perWorld * options.worldSeeds.length * options.systems.length,
    ceilingUsd: live.ceilingUsd,
    deadlineMs: live.deadlineMs,
    retry: { maxRetries: live.maxRetries, retryAfterCapMs: live.retryAfterCapMs },
    reservationMargin: live.reservationMargin,
    requireSmoke: live.requireSmoke,
    analysis: { seed: options.analysisSeed, resamples: options.resamples ?? 2000, level: 0.95 },
  };
}

/** SHA-256 of the manifest's RFC 8785 canonical JSON: every log line carries it. */
export function divergenceManifestSha256(manifest: DivergenceManifest): string {
  return sha256Hex(canonicalJson(manifest));
}

/** The calls of every arm, as the manifest froze them (a check that code and manifest agree). */
export function manifestArmCalls(manifest: DivergenceManifest, armId: string) {
  const found = manifest.arms.find((candidate) => candidate.id === armId);
  if (found === undefined)
    throw new InvalidArgumentError('arm', `no arm ${JSON.stringify(armId)} in the manifest`);
  return armCalls(found);
}
