import {
  type ChatModel,
  InvalidArgumentError,
  type PlannedRequest,
  type SystemSpec,
} from '@chi/spec';
import { restoredModel } from '../memory-systems/memory-restore';
import type { InstanceModelFactory } from './execute-options';
import { replayResolved } from './run-replay';
import type { RunSession } from './run-session';

/** Whether a system's instances are rebuilt on resume by replaying their logged requests. */
function replaysLocally(system: SystemSpec): boolean {
  // In process, free and deterministic: nothing leaves the process and nothing is recorded.
  return system.kind === 'scripted';
}

async function startInstance(
  session: RunSession,
  factory: InstanceModelFactory,
  system: SystemSpec,
  blockId: string,
  block: number,
): Promise<ChatModel> {
  const model = factory(system, blockId);
  if (model.evidenceClass !== system.evidenceClass)
    throw new InvalidArgumentError(
      'modelFor',
      `system ${system.id} is registered as ${system.evidenceClass} but its instance model reports ${model.evidenceClass}`,
    );
  if (replaysLocally(system)) await replayResolved(session, model, system, block);
  return model;
}

/**
 * The model a request is sent to: the system's model (`models`), or with `modelFor` the model of
 * its instance (system and block), made once per session and, for a scripted system on resume,
 * brought up to date by replaying its resolved requests before anything new is sent.
 */
export function modelOf(
  session: RunSession,
  ordinal: number,
  request: PlannedRequest,
  system: SystemSpec,
): Promise<ChatModel> {
  const factory = session.options.modelFor;
  if (factory === undefined)
    return restoredModel(
      session,
      system,
      session.options.models?.get(request.systemId) as ChatModel,
    );
  const key = `${system.id}|${request.blockId}`;
  let instance = session.instanceModels.get(key);
  if (instance === undefined) {
    instance = startInstance(
      session,
      factory,
      system,
      request.blockId,
      session.run.plan.blockOf(ordinal),
    );
    session.instanceModels.set(key, instance);
  }
  return instance;
}
