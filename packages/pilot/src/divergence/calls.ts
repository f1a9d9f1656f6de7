import { computeBlockStatuses, type RequestOutcome, sha256Hex } from '@chi/run';
import { foldAttemptLog, isInfrastructureFailure, loggedOutcome } from '@chi/run/internal';
import {
  type AttemptRecord,
  type ChatResult,
  type PlannedRequest,
  RunFolderDamagedError,
  type RunManifest,
  type RunPlan,
} from '@chi/spec';
import type { NotebookSource } from '@chi/spec/internal';
import { divergenceCallOf } from '../experiments/divergence';
import { applyNotebookCap } from '../notebook';
import { corruptedNotebook } from '../run-notebook-source';
import type { ExcludedInstance } from './analyze';
import { LEGACY_DIVERGENCE_INTERVAL_METHOD } from './interval-method';
import type { DivergenceManifest } from './manifest';
import { type ArmCall, armCalls, type DivergenceArm } from './protocol';
import { buildDivergenceWorld } from './world';

/**
 * What the harness did to a notebook around a call (published per call): `swap` happened before
 * the call (the notebook it shows came from the partner instance); the others after it.
 */
export type NotebookOperation =
  | 'none'
  | 'erase'
  | 'sham-restore'
  | 'swap'
  | 'fault-corrupt'
  | 'fault-restore';

/**
 * One resolved call of a divergence run as the scorer reads it (`divergenceEntries`): rebuilt
 * from `plan.json` and the attempt log (`callRecordsOf`), never stored.
 */
export interface DivergenceCallRecord {
  readonly kind: 'divergence-call';
  readonly manifestSha256: string;
  readonly requestId: string;
  readonly systemId: string;
  readonly worldSeed: number;
  readonly arm: string;
  readonly checkpoint: number;
  readonly role: ArmCall['role'];
  /** The CHIS condition a probe measures; null for updates and operations. */
  readonly condition: string | null;
  readonly nonce: string;
  readonly requestSha256: string;
  readonly inputBytes: number;
  /** SHA-256 of the notes the request showed (after any fault corruption). */
  readonly notesShownSha256: string;
  /** For probes: the choice IDs asked, in order. */
  readonly askedIds: readonly string[] | null;
  readonly result: ChatResult;
  /** The instance's notebook after this call and any operation that followed it. */
  readonly notebookAfter: {
    readonly text: string;
    readonly sha256: string;
    readonly bytes: number;
  };
  readonly operations: readonly NotebookOperation[];
}

/** Why an instance's trajectory stopped before its last call (published; the instance is excluded). */
export type IncompleteInstance = ExcludedInstance;

/**
 * The `DivergenceManifest` view of a divergence `RunManifest` (`experiments.divergence`): what
 * the scorer, the analysis and the plan's cost read. The analysis's numbers depend only on the
 * fields both share.
 */
export function divergenceManifestOf(manifest: RunManifest): DivergenceManifest {
  const params = manifest.experiments.divergence;
  if (params === undefined)
    throw new Error('the run manifest has no experiments.divergence: not a divergence run');
  const perWorld = params.arms.reduce((sum, arm) => sum + armCalls(arm).length, 0);
  return {
    kind: 'divergence-manifest',
    protocol: 'divergence-v0.1',
    createdAt: manifest.createdAt,
    generator: params.generator,
    worldSeeds: manifest.worldSeeds,
    systems: manifest.systems,
    checkpoints: params.checkpoints,
    primaryCheckpoint: params.primaryCheckpoint,
    operations: params.operations,
    arms: params.arms,
    notebookCapBytes: manifest.notebookCapBytes,
    prompts: manifest.prompts,
    requestsPerWorldPerSystem: perWorld,
    totalRequests: perWorld * manifest.worldSeeds.length * manifest.systems.length,
    ceilingUsd: manifest.ceilingUsd,
    deadlineMs: manifest.deadlineMs,
    retry: manifest.retry,
    reservationMargin: manifest.reservationMargin,
    requireSmoke: manifest.requireSmoke === true,
    analysis: {
      seed: manifest.analysis.seed,
      resamples: manifest.analysis.resamples,
      level: manifest.analysis.level,
      intervalMethod: params.intervalMethod ?? LEGACY_DIVERGENCE_INTERVAL_METHOD,
    },
  };
}

/**
 * The instances the runner's block rule left incomplete (`computeBlockStatuses` of `@chi/run`
 * over the attempt log: an infrastructure failure, an abandoned request, or a request blocked
 * because one it depends on produced no notebook, such as a swap whose partner failed), with the
 * first request that did not resolve cleanly and the block's reasons.
 */
export function incompleteInstances(
  plan: RunPlan,
  records: readonly AttemptRecord[],
  path: string,
): IncompleteInstance[] {
  const states = foldAttemptLog(records);
  const outcomes = new Map<string, RequestOutcome>(
    [...states].map(([id, state]) => [id, loggedOutcome(state)]),
  );
  const requests = new Map(plan.requests.map((request) => [request.requestId, request]));
  const ended = endedRequests(plan, outcomes, path);
  // Never sent because a request it depends on ended its instance: blocked, as the runner says.
  for (const request of plan.requests)
    if (ended.has(request.requestId) && !outcomes.has(request.requestId))
      outcomes.set(request.requestId, {
        kind: 'blocked',
        by: request.dependsOn.find((id) => ended.has(id)) ?? '',
      });
  return computeBlockStatuses(plan, outcomes)
    .filter((status) => status.status !== 'complete')
    .map((status) => {
      const block = plan.blocks.find((candidate) => candidate.blockId === status.blockId);
      const first = (block?.requestIds ?? []).find((id) => ended.has(id));
      const request = requests.get(first ?? '') ?? requests.get(block?.requestIds[0] ?? '');
      if (request === undefined) throw new Error(`block ${status.blockId} has no requests`);
      return {
        systemId: request.systemId,
        worldSeed: request.worldSeed,
        arm: armOfStep(request.step),
        requestId: request.requestId,
        reason: status.reasons.join('; '),
      };
    });
}

function armOfStep(step: string): string {
  return step.replace(/\.c\d+\.(update|operation|probe)\.\d+$/, '');
}

/**
 * The requests that did not resolve cleanly (an infrastructure failure, an abandoned request) and
 * those never sent because one they depend on is such a request. A request never sent for no
 * such reason means the run is not finished: a damaged folder for the recomputation.
 */
function endedRequests(
  plan: RunPlan,
  outcomes: ReadonlyMap<string, RequestOutcome>,
  path: string,
): Set<string> {
  const ended = new Set<string>();
  for (const request of plan.requests) {
    const outcome = outcomes.get(request.requestId);
    if (outcome?.kind === 'resolved') {
      if (isInfrastructureFailure(outcome.result)) ended.add(request.requestId);
    } else if (outcome?.kind === 'abandoned') ended.add(request.requestId);
    else if (request.dependsOn.some((id) => ended.has(id))) ended.add(request.requestId);
    else {
      const block = plan.blocks.find((candidate) => candidate.blockId === request.blockId);
      const ids = block?.requestIds ?? [];
      const resolved = ids.filter((id) => outcomes.get(id)?.kind === 'resolved').length;
      throw new RunFolderDamagedError(
        path,
        `instance ${request.systemId} world ${request.worldSeed} arm ${armOfStep(request.step)} has ${resolved} of its ${ids.length} calls and no reason it stopped: the run is not finished (resume it with chi pilot --resume)`,
      );
    }
  }
  return ended;
}

/** The notebook one call of an instance sees, from its source or the instance's current one. */
function notesBefore(
  source: NotebookSource | undefined,
  current: string,
  written: ReadonlyMap<string, string>,
): string {
  if (source === undefined) return current;
  if (source.kind === 'empty') return '';
  return written.get(source.requestId) ?? '';
}

/** The harness operations around one call, as the published call record names them. */
function operationsOf(
  request: PlannedRequest,
  arm: DivergenceArm,
  call: ArmCall,
): NotebookOperation[] {
  const operations: NotebookOperation[] = [];
  const source = request.notebookSource;
  // The only request-named notebook of a swap arm is its partner's.
  if (source?.kind === 'request' && arm.operation.kind === 'swap') operations.push('swap');
  if (source?.kind === 'corrupted') operations.push('fault-corrupt', 'fault-restore');
  if (call.role === 'operation')
    operations.push(arm.operation.kind === 'erase' ? 'erase' : 'sham-restore');
  return operations;
}

/** Plan order of the sequential protocol: world, system, checkpoint, arm, then the arm's calls. */
function protocolOrder(manifest: DivergenceManifest, plan: RunPlan): PlannedRequest[] {
  const worlds = new Map(manifest.worldSeeds.map((seed, index) => [seed, index]));
  const systems = new Map(manifest.systems.map((system, index) => [system.id, index]));
  const arms = new Map(manifest.arms.map((arm, index) => [arm.id, index]));
  const key = (request: PlannedRequest, index: number) => {
    const { arm, call } = divergenceCallOf(request, manifest);
    return [
      worlds.get(request.worldSeed) ?? 0,
      systems.get(request.systemId) ?? 0,
      call.checkpoint,
      arms.get(arm.id) ?? 0,
      index,
    ];
  };
  const keyed = plan.requests.map((request, index) => ({ request, key: key(request, index) }));
  keyed.sort((a, b) => {
    for (let i = 0; i < a.key.length; i += 1) {
      const d = (a.key[i] as number) - (b.key[i] as number);
      if (d !== 0) return d;
    }
    return 0;
  });
  return keyed.map((entry) => entry.request);
}

/**
 * The call records of a divergence run's resolved requests, rebuilt from `plan.json` and the
 * attempt log alone: the notebook every call showed (its source, else the instance's current
 * one; a corrupted copy for the fault probe) and the one it left, folded under the runner's rule
 * (an update's reply, capped, becomes the notebook unless it failed for the infrastructure's
 * reasons; the erasure's operation call leaves it empty). Calls of `excluded` instances are left
 * out. In the sequential protocol's order (world, system, checkpoint, arm).
 */
export function callRecordsOf(
  manifest: DivergenceManifest,
  manifestSha256: string,
  plan: RunPlan,
  records: readonly AttemptRecord[],
  excluded: readonly IncompleteInstance[],
): DivergenceCallRecord[] {
  const states = foldAttemptLog(records);
  const sent = resultRecords(records);
  const skip = new Set(excluded.map((i) => `${i.systemId}|${i.worldSeed}|${i.arm}`));
  const current = new Map<string, string>();
  const written = new Map<string, string>();
  const worlds = new Map<number, ReturnType<typeof buildDivergenceWorld>>();
  const calls: DivergenceCallRecord[] = [];
  for (const request of protocolOrder(manifest, plan)) {
    const { arm, call } = divergenceCallOf(request, manifest);
    const instance = `${request.systemId}|${request.worldSeed}|${arm.id}`;
    const state = states.get(request.requestId);
    const result = state?.result ?? null;
    if (skip.has(instance) || result === null) continue;
    const system = manifest.systems.find((candidate) => candidate.id === request.systemId);
    const cap = system?.uncappedNotebook === true ? null : manifest.notebookCapBytes;
    const before = notesBefore(request.notebookSource, current.get(instance) ?? '', written);
    const shown = request.notebookSource?.kind === 'corrupted' ? corruptedNotebook(before) : before;
    let after = before;
    if (call.role === 'update' && !isInfrastructureFailure(result)) {
      after = applyNotebookCap(result.text ?? '', cap).text;
      written.set(request.requestId, after);
    } else if (call.role === 'operation' && arm.operation.kind === 'erase') after = '';
    current.set(instance, after);
    const notebook = applyNotebookCap(after, cap);
    const world = worlds.get(request.worldSeed) ?? buildDivergenceWorld(request.worldSeed);
    worlds.set(request.worldSeed, world);
    calls.push({
      kind: 'divergence-call',
      manifestSha256,
      requestId: request.requestId,
      systemId: request.systemId,
      worldSeed: request.worldSeed,
      arm: arm.id,
      checkpoint: call.checkpoint,
      role: call.role,
      condition: call.condition,
      nonce: request.nonce,
      requestSha256: sent.get(request.requestId)?.requestSha256 ?? '',
      inputBytes: sent.get(request.requestId)?.inputBytes ?? 0,
      notesShownSha256: sha256Hex(shown),
      askedIds: call.role === 'probe' ? world.panel.map((environment) => environment.id) : null,
      result,
      notebookAfter: { text: notebook.text, sha256: notebook.sha256, bytes: notebook.bytes },
      operations: operationsOf(request, arm, call),
    });
  }
  return calls;
}

/** The last `after_response` record of every request (its request hash and input bytes). */
function resultRecords(records: readonly AttemptRecord[]): Map<string, AttemptRecord> {
  const found = new Map<string, AttemptRecord>();
  for (const record of records)
    if (record.phase === 'after_response') found.set(record.requestId, record);
  return found;
}
