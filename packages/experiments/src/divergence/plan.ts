import { type PlannedUnit, requestNonce } from '@chi/experiment';
import type { PlannedRequest } from '@chi/spec';
import type { NotebookSource } from '@chi/spec/internal';
import type { DivergenceManifest } from './manifest';
import { notApplicableReason } from './not-applicable';
import { type ArmCall, armCalls, type DivergenceArm } from './protocol';

/**
 * The divergence protocol as registered requests of the shared runner (`plan.json` blocks), the
 * plan docs/architecture.md ("The divergence protocol and the shared runner") describes: one block
 * per instance (system, world seed, arm), each request depending on the one before it, every
 * notebook operation a `notebookSource` of the request that first reads the changed notebook, and
 * the swap in lockstep by depending on the partner's notebook. Request IDs and nonces are the ones
 * the sequential executor sent before the port, so the rendered requests are byte-identical.
 */

/**
 * What planning reads: the arms, the operations' checkpoints and the systems, from a
 * `DivergenceManifest` or from a `RunManifest` with its `experiments.divergence`.
 */
export type DivergencePlanInput = Pick<DivergenceManifest, 'arms' | 'operations' | 'systems'>;

/** The block of one instance: `divergence.w<seed>.<arm>.<systemId>`. */
export function divergenceBlockId(worldSeed: number, armId: string, systemId: string): string {
  return `divergence.w${worldSeed}.${armId}.${systemId}`;
}

/** The notebook one instance reads and writes: `divergence|<seed>|<arm>`. */
export function divergenceNotebookKey(worldSeed: number, armId: string): string {
  return `divergence|${worldSeed}|${armId}`;
}

/** The step names of an arm's calls: `c<checkpoint>.<role>.<index within the checkpoint>`. */
function stepsOf(calls: readonly ArmCall[]): string[] {
  return calls.map((call, index) => {
    const within = calls.slice(0, index).filter((c) => c.checkpoint === call.checkpoint).length;
    return `c${call.checkpoint}.${call.role}.${within}`;
  });
}

function requestIdOf(systemId: string, worldSeed: number, armId: string, step: string): string {
  return `${systemId}.divergence.w${worldSeed}.${armId}.${step}`;
}

/** The step of the last notebook-writing call of an arm at or before `checkpoint`. */
function lastUpdateStep(arm: DivergenceArm, checkpoint: number, before = Infinity): string {
  const calls = armCalls(arm);
  const steps = stepsOf(calls);
  let found: string | null = null;
  calls.forEach((call, index) => {
    if (call.role === 'update' && call.checkpoint <= checkpoint && index < before)
      found = steps[index] as string;
  });
  if (found === null)
    throw new Error(`arm ${arm.id} writes no notebook by checkpoint ${checkpoint}`);
  return found;
}

/**
 * Where the notebook call `index` of an arm reads comes from, when not its own key: the first
 * call after the swap reads the partner's; the first after an erasure an empty one, after a sham
 * erasure the one from before the operation call; the fault probe a corrupted copy.
 */
function sourceOf(
  manifest: DivergencePlanInput,
  arm: DivergenceArm,
  calls: readonly ArmCall[],
  index: number,
  idOf: (armId: string, step: string) => string,
): NotebookSource | undefined {
  const call = calls[index] as ArmCall;
  const previous = calls[index - 1];
  const operation = arm.operation;
  const firstAfter = (checkpoint: number) =>
    previous !== undefined && previous.checkpoint === checkpoint && call.checkpoint > checkpoint;
  if (operation.kind === 'swap' && firstAfter(manifest.operations.swapAfter)) {
    const partner = manifest.arms.find((candidate) => candidate.id === operation.partner);
    if (partner === undefined) throw new Error(`swap partner ${operation.partner} missing`);
    const step = lastUpdateStep(partner, manifest.operations.swapAfter);
    return { kind: 'request', requestId: idOf(partner.id, step) };
  }
  if (previous?.role === 'operation' && operation.kind === 'erase') return { kind: 'empty' };
  if (previous?.role === 'operation' && operation.kind === 'sham-erase') {
    const step = lastUpdateStep(arm, previous.checkpoint, index - 1);
    return { kind: 'request', requestId: idOf(arm.id, step) };
  }
  if (call.role === 'probe' && call.condition === 'fault') {
    const step = lastUpdateStep(arm, call.checkpoint, index);
    return { kind: 'corrupted', requestId: idOf(arm.id, step) };
  }
  return undefined;
}

/** The registered requests of one instance, in order. */
export function instanceRequests(
  manifest: DivergencePlanInput,
  systemId: string,
  worldSeed: number,
  arm: DivergenceArm,
): PlannedRequest[] {
  const calls = armCalls(arm);
  const steps = stepsOf(calls);
  const idOf = (armId: string, step: string) => requestIdOf(systemId, worldSeed, armId, step);
  return calls.map((call, index) => {
    const step = steps[index] as string;
    const source = sourceOf(manifest, arm, calls, index, idOf);
    const previous = index === 0 ? [] : [idOf(arm.id, steps[index - 1] as string)];
    const named = source === undefined || source.kind === 'empty' ? [] : [source.requestId];
    return {
      requestId: idOf(arm.id, step),
      systemId,
      blockId: divergenceBlockId(worldSeed, arm.id, systemId),
      experiment: 'divergence',
      task: call.role === 'probe' ? 'divergence_probe' : 'divergence_update',
      step: `${arm.id}.${step}`,
      worldSeed,
      load: null,
      condition: null,
      batch: null,
      history: null,
      checkpoint: null,
      half: null,
      dependsOn: [...new Set([...previous, ...named])],
      // The erasure and sham operation call's reply is discarded: only what follows differs.
      writesNotebook: call.role === 'update',
      nonce: requestNonce(worldSeed, 'divergence', step),
      ...(source === undefined ? {} : { notebookSource: source }),
    };
  });
}

/**
 * The blocks of one world: one per arm and system (an instance), in the manifest's arm order; an
 * infrastructure failure then ends one instance through the runner's block rule.
 */
export function planDivergenceWorld(
  manifest: DivergencePlanInput,
  worldSeed: number,
): PlannedUnit[] {
  return manifest.arms.flatMap((arm) =>
    // An arm not applicable to a system (memory policy system, no state control) is not planned.
    manifest.systems
      .filter((system) => notApplicableReason(system, arm) === null)
      .map(
        (system): PlannedUnit => ({
          block: {
            blockId: divergenceBlockId(worldSeed, arm.id, system.id),
            experiment: 'divergence',
            worldSeed,
            load: null,
          },
          requestsFor: (systemId) =>
            systemId === system.id ? instanceRequests(manifest, systemId, worldSeed, arm) : [],
        }),
      ),
  );
}
