import type { ServerResponse } from 'node:http';
import { basename } from 'node:path';
import { InvalidArgumentError } from '@chi/spec';
import { BOOTSTRAP_DEFAULTS } from '@chi/stats';
import { type CompareSide, compareRuns } from './view-compare';
import { comparisonPage, comparisonRefusedPage } from './view-compare-page';

/** Where the server's runs are: one run (`single`), or a folder of named runs. */
export interface CompareRoots {
  readonly dir: string;
  readonly single: boolean;
  /** The folder's runs: name -> path. */
  readonly runs: ReadonlyMap<string, string>;
}

type Send = (response: ServerResponse, status: number, type: string, body: string) => void;

/** A query parameter, with an empty form field read as absent. */
function param(url: URL, name: string): string | undefined {
  const value = url.searchParams.get(name);
  return value === null || value === '' ? undefined : value;
}

/**
 * The two sides a `/compare` URL names: `a`, `b` (runs of the folder; default the two runs of a
 * folder of two) and `sa`, `sb` (systems).
 */
function sidesOf(url: URL, roots: CompareRoots): [CompareSide, CompareSide] {
  const side = (field: 'a' | 'b', systemField: 'sa' | 'sb'): CompareSide => {
    const system = param(url, systemField);
    if (roots.single)
      return {
        label: basename(roots.dir),
        dir: roots.dir,
        ...(system === undefined ? {} : { system }),
      };
    // a folder of exactly two runs (`chi view RUN_A RUN_B`) compares them without naming them
    const names = [...roots.runs.keys()];
    const name =
      param(url, field) ?? (names.length === 2 ? names[field === 'a' ? 0 : 1] : undefined);
    const path = name === undefined ? undefined : roots.runs.get(name);
    if (name === undefined || path === undefined)
      throw new InvalidArgumentError(
        field,
        `expected one of the folder's runs (${[...roots.runs.keys()].join(', ')}), found ${JSON.stringify(name ?? '')}`,
      );
    return { label: name, dir: path, ...(system === undefined ? {} : { system }) };
  };
  return [side('a', 'sa'), side('b', 'sb')];
}

/**
 * Answers `/compare` (the page) and `/api/compare` (its JSON) of {@link compareRuns}: two runs of
 * a folder of runs (`?a=RUN&b=RUN[&sa=SYSTEM][&sb=SYSTEM]`), or two systems of the one run served
 * (`?sa=SYSTEM&sb=SYSTEM`). A refused comparison (no shared world, no release, unknown run or
 * system) is a 400 with its reason. Returns false for any other path.
 */
export async function answerCompare(
  path: string,
  url: URL,
  roots: CompareRoots,
  response: ServerResponse,
  send: Send,
  style: string,
): Promise<boolean> {
  if (path !== '/compare' && path !== '/api/compare') return false;
  const json = path === '/api/compare';
  try {
    const comparison = await compareRuns(...sidesOf(url, roots));
    if (json) send(response, 200, 'application/json', JSON.stringify(comparison));
    else
      send(
        response,
        200,
        'text/html; charset=utf-8',
        comparisonPage(comparison, style, BOOTSTRAP_DEFAULTS.level),
      );
  } catch (error) {
    if (!InvalidArgumentError.isInstance(error)) throw error;
    const message = error.message;
    if (json) send(response, 400, 'text/plain; charset=utf-8', message);
    else send(response, 400, 'text/html; charset=utf-8', comparisonRefusedPage(message, style));
  }
  return true;
}
