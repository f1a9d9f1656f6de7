import { InvalidArgumentError } from '@chi/spec';
import type { ViewRun } from './view-run';

/** A query parameter value of the viewer's API. */
export type ViewApiParams = Readonly<Record<string, string | number | undefined>>;

/**
 * The canonical path of a call of the viewer's API, `api/<name>?<key>=<value>&...` with keys
 * sorted and absent values left out: the page's script builds its calls the same way, so a bundle
 * answers each call from a table keyed by this path.
 */
export function viewApiPath(name: string, params: ViewApiParams = {}): string {
  const query = Object.keys(params)
    .filter((key) => params[key] !== undefined)
    .sort()
    .map((key) => `${key}=${encodeURIComponent(String(params[key]))}`)
    .join('&');
  return query === '' ? `api/${name}` : `api/${name}?${query}`;
}

function integer(params: URLSearchParams, name: string): number | undefined {
  const text = params.get(name);
  if (text === null) return undefined;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 0)
    throw new InvalidArgumentError(
      name,
      `expected a non-negative integer, found ${JSON.stringify(text)}`,
    );
  return value;
}

function required(params: URLSearchParams, name: string): string {
  const text = params.get(name);
  if (text === null || text === '')
    throw new InvalidArgumentError(name, `expected the query parameter ${name}`);
  return text;
}

function requiredInteger(params: URLSearchParams, name: string): number {
  return integer(params, name) ?? (required(params, name) as never);
}

/**
 * Answers one call of the viewer's API (`api/<name>?...`): `summary`, `progress`, `worlds`,
 * `items`, `item`, `request`, `notebook`; undefined for a name it does not know.
 *
 * @throws InvalidArgumentError naming a missing or malformed parameter
 */
export async function answerViewApi(
  run: ViewRun,
  name: string,
  params: URLSearchParams,
): Promise<unknown> {
  switch (name) {
    case 'summary':
      return run.summary();
    case 'progress':
      return run.progress();
    case 'worlds':
      return run.worlds(
        required(params, 'system'),
        integer(params, 'offset'),
        integer(params, 'limit'),
      );
    case 'items': {
      const start = integer(params, 'start');
      const reason = params.get('reason');
      return run.items({
        systemId: required(params, 'system'),
        world: requiredInteger(params, 'world'),
        cellPath: required(params, 'cell'),
        ...(start === undefined ? {} : { start }),
        ...(reason === null || reason === '' ? {} : { reason }),
      });
    }
    case 'item':
      return run.item(
        required(params, 'system'),
        requiredInteger(params, 'world'),
        required(params, 'key'),
      );
    case 'request':
      return run.request(required(params, 'id'));
    case 'notebook':
      return run.notebook(required(params, 'path'));
    default:
      return undefined;
  }
}
