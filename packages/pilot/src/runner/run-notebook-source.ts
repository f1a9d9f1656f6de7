import { corruptedNotebook, type NotebookContent } from '@chi/experiments/internal';
import { InvalidArgumentError, type PlannedRequest } from '@chi/spec';
import type { NotesLookup } from '../experiments/experiment';
import type { RunSession } from './run-session';

/** Where the runner keeps the notebook a named request wrote, in `RunSession.notebooks`. */
export function sourceNotebookKey(systemId: string, requestId: string): string {
  return `${systemId}|request|${requestId}`;
}

function namedNotebook(session: RunSession, request: PlannedRequest, named: string): string {
  const content: NotebookContent | undefined = session.notebooks.get(
    sourceNotebookKey(request.systemId, named),
  );
  if (content === undefined)
    throw new InvalidArgumentError(
      'notebookSource',
      `request ${request.requestId} reads the notebook of ${named}, which wrote none (it must be a resolved notebook-writing request among its dependsOn)`,
    );
  return content.text;
}

/**
 * The notebook lookup a request renders with: its experiment's keys (`fallback`), unless the
 * request names a notebook source; then every lookup of its render returns the sourced notebook
 * (`request`: the one that request wrote; `empty`; `corrupted`: that one made unreadable).
 */
export function sourcedNotes(
  session: RunSession,
  request: PlannedRequest,
  fallback: NotesLookup,
): NotesLookup {
  const source = request.notebookSource;
  if (source === undefined) return fallback;
  if (source.kind === 'empty') return () => '';
  const text = namedNotebook(session, request, source.requestId);
  const shown = source.kind === 'corrupted' ? corruptedNotebook(text) : text;
  return () => shown;
}
