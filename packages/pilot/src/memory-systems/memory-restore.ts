import { openRunFolder } from '@chi/run';
import { type ChatModel, RunFolderDamagedError, type SystemSpec } from '@chi/spec';
import type { RunSession } from '../run-session';
import { memoryPolicyOf, requestInstance } from './instance-identity';

/** Per session: the restored model of each in-process stateful system, by system ID. */
const restoredBySession = new WeakMap<RunSession, Map<string, Promise<ChatModel>>>();

/**
 * Rebuilds the memory of a reference memory system kept in this process (memory policy `system`,
 * kind `scripted`) after a resume: its memory died with the process that was interrupted, so the
 * sessions earlier processes resolved are sent to it again, in plan order, with their instance
 * and the messages exactly as stored. Nothing leaves the process and nothing is recorded (the
 * attempt log already holds them); the resume rule says so (`resume-rule.ts`). A system served
 * over HTTP is never replayed: its memory outlived the interruption.
 */
async function replayResolvedSessions(
  session: RunSession,
  model: ChatModel,
  system: SystemSpec,
): Promise<void> {
  const { plan } = session.run;
  let folder: ReturnType<typeof openRunFolder> | null = null;
  for (let ordinal = 0; ordinal < plan.requestCount; ordinal += 1) {
    if (session.outcomes.kindOf(ordinal) !== 'resolved') continue;
    const request = plan.requestAt(ordinal);
    if (request.systemId !== system.id) continue;
    folder ??= openRunFolder(session.options.runDir);
    const stored = await folder.readRequest(request.requestId);
    if (stored === null)
      throw new RunFolderDamagedError(
        folder.paths.requestIndex,
        `request ${request.requestId} resolved but was never stored: its memory cannot be rebuilt`,
      );
    await model.generate({
      requestId: request.requestId,
      messages: stored.messages,
      maxOutputTokens: stored.maxOutputTokens,
      instance: requestInstance(request, session.run.frozen.sha256),
    });
  }
}

/**
 * The model to send a request to: unchanged, except that an in-process system that keeps its own
 * memory gets its memory rebuilt once per session, before anything new is sent to it.
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
    restored = replayResolvedSessions(session, model, system).then(() => model);
    bySystem.set(system.id, restored);
  }
  return restored;
}
