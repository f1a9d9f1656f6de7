import {
  InvalidArgumentError,
  type PlannedBlock,
  type PlannedRequest,
  type RunManifest,
  type RunPlan,
} from '@chi/spec';
import type { AnyExperiment, PlannedUnit } from '../experiments/experiment';
import { REGISTERED_EXPERIMENTS } from '../experiments/registry';

export { probeBatchCount } from '@chi/experiments/internal';
export { requestNonce } from './plan-request';

function assertUniqueSystems(manifest: RunManifest): string[] {
  const systemIds = manifest.systems.map((system) => system.id);
  const duplicate = systemIds.find((id, index) => systemIds.indexOf(id) !== index);
  if (duplicate !== undefined)
    throw new InvalidArgumentError(
      'systems',
      `system IDs must be unique, found ${duplicate} twice`,
    );
  return systemIds;
}

/** Interleaves the systems' request lists of one block: request k of every system, then k + 1. */
function interleave(lists: readonly (readonly PlannedRequest[])[]): PlannedRequest[] {
  const interleaved: PlannedRequest[] = [];
  const longest = Math.max(0, ...lists.map((list) => list.length));
  for (let index = 0; index < longest; index++) {
    for (const list of lists) {
      const request = list[index];
      if (request !== undefined) interleaved.push(request);
    }
  }
  return interleaved;
}

/**
 * Every registered request of a run, derived from the manifest alone, in scheduling order:
 * world by world (so that whole replicates finish first under a ceiling), and within a world
 * experiment by experiment in registry order (memory loads ascending, the controls, history,
 * then behavior). Within a block every system's requests are interleaved, so a block completes
 * across systems before the next one starts. An experiment whose parameters are null in the
 * manifest is not planned.
 */
export function buildRunPlan(
  manifest: RunManifest,
  experiments: readonly AnyExperiment[] = REGISTERED_EXPERIMENTS,
): RunPlan {
  const systemIds = assertUniqueSystems(manifest);
  const requests: PlannedRequest[] = [];
  const blocks: PlannedBlock[] = [];
  const addUnit = (unit: PlannedUnit) => {
    const interleaved = interleave(systemIds.map(unit.requestsFor));
    requests.push(...interleaved);
    blocks.push({ ...unit.block, requestIds: interleaved.map((request) => request.requestId) });
  };
  for (const worldSeed of manifest.worldSeeds) {
    for (const experiment of experiments) {
      const params = experiment.parametersOf(manifest);
      if (params === null) continue;
      for (const unit of experiment.plan({ manifest, params, worldSeed })) addUnit(unit);
    }
  }
  return { kind: 'run-plan', schemaVersion: 1, requests, blocks };
}

/** Request counts per system, for `chi pilot --plan`. */
export function requestsPerSystem(plan: RunPlan): Map<string, number> {
  const counts = new Map<string, number>();
  for (const request of plan.requests)
    counts.set(request.systemId, (counts.get(request.systemId) ?? 0) + 1);
  return counts;
}
