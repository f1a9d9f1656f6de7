import {
  applyNotebookCap,
  type NotebookContent,
  REPLY_KEY_PREFIX,
} from '@chi/experiments/internal';
import { type ChatResult, InvalidArgumentError, type PlannedRequest } from '@chi/spec';
import { isInfrastructureFailure, type NotebookSnapshot, plannedField } from '@chi/spec/internal';
import { notebookKey } from '../plan/render-planned';
import { writeJsonFile } from '../run-folder/run-folder';
import type { OpenedRun } from './opened-run';
import { noteNotebookWriter } from './run-held-state';
import { sourceNotebookKey } from './run-notebook-source';
import type { RunSession } from './run-session';

/** The notebook cap of a system's notebooks: none for an uncapped system, else the manifest's. */
function capOf(run: OpenedRun, systemId: string): number | null {
  return run.systems.get(systemId)?.uncappedNotebook === true
    ? null
    : run.manifest.notebookCapBytes;
}

/** The empty notebooks every system starts with, for each experiment of the run that has them. */
export function startingNotebooks(run: OpenedRun): Map<string, NotebookContent> {
  const notebooks = new Map<string, NotebookContent>();
  for (const experiment of run.experiments) {
    if (experiment.parametersOf(run.manifest) === null) continue;
    for (const key of experiment.startingNotebooks?.(run.manifest) ?? [])
      for (const system of run.manifest.systems)
        notebooks.set(`${system.id}|${key}`, applyNotebookCap('', capOf(run, system.id)));
  }
  return notebooks;
}

async function writeNotebook(
  run: OpenedRun,
  request: PlannedRequest,
  content: NotebookContent,
): Promise<void> {
  const path =
    request.experiment === 'history'
      ? run.paths.historyNotebook(
          request.systemId,
          request.worldSeed,
          plannedField(request, 'history'),
          plannedField(request, 'checkpoint'),
        )
      : request.experiment === 'memory' || request.experiment === 'controls'
        ? run.paths.memoryNotebook(
            request.systemId,
            request.worldSeed,
            plannedField(request, 'load'),
          )
        : run.paths.moduleNotebook(
            request.systemId,
            request.experiment,
            notebookKey(request, run.experiments),
          );
  const snapshot: NotebookSnapshot = {
    kind: 'notebook',
    systemId: request.systemId,
    blockId: request.blockId,
    requestId: request.requestId,
    text: content.text,
    bytes: content.bytes,
    originalBytes: content.originalBytes,
    truncated: content.truncated,
    sha256: content.sha256,
    capBytes: content.capBytes,
  };
  await writeJsonFile(path, snapshot);
}

/** Keeps a notebook a request wrote, noting its block (dropped once nothing pending needs it). */
function keepWritten(
  session: RunSession,
  ordinal: number,
  key: string,
  content: NotebookContent,
): void {
  session.notebooks.set(key, content);
  noteNotebookWriter(session, key, session.run.plan.blockOf(ordinal));
}

/**
 * Keeps the notebook a resolved request (`request`, plan ordinal `ordinal`) wrote (its reply, capped) and writes its snapshot; a
 * request that writes none, or failed for the infrastructure's reasons, keeps nothing. The reply
 * itself, uncapped, is kept too under `reply|<key>`: what the memory experiment's
 * transcript-replay baseline stores and replays (never a notebook; not written to the folder,
 * since the attempt log holds it and a resume rebuilds it from there).
 */
export async function keepNotebook(
  session: RunSession,
  ordinal: number,
  request: PlannedRequest,
  result: ChatResult,
): Promise<void> {
  if (!request.writesNotebook || isInfrastructureFailure(result)) return;
  const content = applyNotebookCap(result.text ?? '', capOf(session.run, request.systemId));
  const key = notebookKey(request, session.run.experiments);
  keepWritten(session, ordinal, `${request.systemId}|${key}`, content);
  keepWritten(
    session,
    ordinal,
    `${request.systemId}|${REPLY_KEY_PREFIX}${key}`,
    applyNotebookCap(result.text ?? '', null),
  );
  if (session.run.plan.isNotebookSource(ordinal))
    keepWritten(session, ordinal, sourceNotebookKey(request.systemId, request.requestId), content);
  await writeNotebook(session.run, request, content);
}

/** The text of a system's notebook, for rendering a request that reads it. */
export function notebookText(session: RunSession, systemId: string, key: string): string {
  const content = session.notebooks.get(`${systemId}|${key}`);
  if (content === undefined)
    throw new InvalidArgumentError(
      'notebook',
      `no notebook ${key} for ${systemId}: its writer has not resolved`,
    );
  return content.text;
}
