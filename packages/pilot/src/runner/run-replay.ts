import { openRunFolder, type RunFolder } from '@chi/run';
import { type ChatModel, RunFolderDamagedError, type SystemSpec } from '@chi/spec';
import { instanceOf } from '../memory-systems/request-identity';
import type { RunSession } from './run-session';

/**
 * Replays to a model kept in this process the requests of `system` that earlier sessions
 * resolved (in plan order, the messages exactly as stored, with the instance they were sent
 * with), so that the state it keeps is the one it had before the interruption; with `block`, only
 * that block's (one instance of a system). Nothing leaves the process and nothing is recorded:
 * the attempt log already holds these requests. The run folder is opened only when there is
 * something to read.
 */
export async function replayResolved(
  session: RunSession,
  model: ChatModel,
  system: SystemSpec,
  block: number | null,
): Promise<void> {
  const { plan } = session.run;
  let folder: RunFolder | null = null;
  for (let ordinal = 0; ordinal < plan.requestCount; ordinal += 1) {
    if (session.outcomes.kindOf(ordinal) !== 'resolved') continue;
    if (block !== null && plan.blockOf(ordinal) !== block) continue;
    const request = plan.requestAt(ordinal);
    if (request.systemId !== system.id) continue;
    folder ??= openRunFolder(session.options.runDir);
    const stored = await folder.readRequest(request.requestId);
    // Stored before its before_send: a resolved request without it is a damaged folder.
    if (stored === null)
      throw new RunFolderDamagedError(
        folder.paths.requestIndex,
        `request ${request.requestId} resolved but was never stored: its instance cannot be replayed`,
      );
    await model.generate({
      requestId: request.requestId,
      messages: stored.messages,
      maxOutputTokens: stored.maxOutputTokens,
      ...instanceOf(session, request, system),
    });
  }
}
