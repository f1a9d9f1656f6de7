import { canonicalJson, sha256Hex } from '@chi/run';
import { InvalidArgumentError, type SystemSpec } from '@chi/spec';
import { generatorInfo } from '@chi/worlds';
import { NOTEBOOK_CAP_BYTES } from '../notebook';
import { type PromptSet, promptRefs } from '../prompts';
import {
  armCalls,
  DIVERGENCE_ARMS,
  DIVERGENCE_CHECKPOINTS,
  DIVERGENCE_OPERATION_CHECKPOINTS,
  DIVERGENCE_PRIMARY_CHECKPOINT,
  DIVERGENCE_PROTOCOL_ID,
  type DivergenceArm,
  type DivergenceCheckpoint,
  divergenceRequestsPerWorld,
} from './protocol';

/**
 * The frozen manifest of a divergence run: written and hashed before the first request; the
 * checkpoints, the primary checkpoint, the operations and the arms are preregistered here and the
 * analysis reads them from here (never from code constants).
 */
export interface DivergenceManifest {
  readonly kind: 'divergence-manifest';
  readonly protocol: typeof DIVERGENCE_PROTOCOL_ID;
  readonly createdAt: string;
  /** The world generator that made the worlds (its version changes the worlds). */
  readonly generator: { readonly name: string; readonly version: string };
  readonly worldSeeds: readonly number[];
  readonly systems: readonly SystemSpec[];
  readonly checkpoints: readonly DivergenceCheckpoint[];
  readonly primaryCheckpoint: number;
  readonly operations: typeof DIVERGENCE_OPERATION_CHECKPOINTS;
  readonly arms: readonly DivergenceArm[];
  readonly notebookCapBytes: number;
  readonly prompts: readonly { name: string; version: string; sha256: string }[];
  readonly requestsPerWorldPerSystem: number;
  readonly totalRequests: number;
  readonly analysis: { readonly seed: number; readonly resamples: number; readonly level: number };
}

/** Options of {@link buildDivergenceManifest}. */
export interface DivergenceManifestOptions {
  readonly worldSeeds: readonly number[];
  readonly systems: readonly SystemSpec[];
  readonly prompts: PromptSet;
  readonly createdAt: string;
  readonly analysisSeed: number;
  readonly resamples?: number;
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
  return {
    kind: 'divergence-manifest',
    protocol: DIVERGENCE_PROTOCOL_ID,
    createdAt: options.createdAt,
    generator: generatorInfo(),
    worldSeeds: [...options.worldSeeds],
    systems: [...options.systems],
    checkpoints: DIVERGENCE_CHECKPOINTS,
    primaryCheckpoint: DIVERGENCE_PRIMARY_CHECKPOINT,
    operations: DIVERGENCE_OPERATION_CHECKPOINTS,
    arms: DIVERGENCE_ARMS,
    notebookCapBytes: NOTEBOOK_CAP_BYTES,
    prompts: promptRefs(options.prompts).filter(
      (ref) => ref.name === 'system' || ref.name.startsWith('history-'),
    ),
    requestsPerWorldPerSystem: perWorld,
    totalRequests: perWorld * options.worldSeeds.length * options.systems.length,
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
