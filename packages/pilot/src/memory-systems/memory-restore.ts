import type { ChatModel, SystemSpec } from '@chi/spec';
import { replayResolved } from '../runner/run-replay';
import type { RunSession } from '../runner/run-session';
import { memoryPolicyOf } from './instance-identity';

/** Per session: the restored model of each in-process stateful system, by system ID. */
const restoredBySession = new WeakMap<RunSession, Map<string, Promise<ChatModel>>>();

/**
 * The model to send a request to: unchanged, except that an in-process system that keeps its own
 * memory gets its memory rebuilt once per session, before anything new is sent to it. Its memory
 * died with the process that was interrupted, so the sessions earlier processes resolved are
 * replayed to it (`replayResolved`); the resume rule says so (`resume-rule.ts`). A system served
 * over HTTP is never replayed: its memory outlived the interruption.
 */
export function restoredModel(
  session: RunSession,
  system: SystemSpec,
  model: ChatModel,
): Promise<ChatModel> {
  if (memoryPolicyOf(system) !== 'system' || system.kind !== 'scripted')
    return Promise.resolve(model);
  let bySystem = restoredBySession.get(session);
  if (bySystem === undefined) {
    bySystem = new Map();
    restoredBySession.set(session, bySystem);
  }
  let restored = bySystem.get(system.id);
  if (restored === undefined) {
    restored = replayResolved(session, model, system, null).then(() => model);
    bySystem.set(system.id, restored);
  }
  return restored;
}
