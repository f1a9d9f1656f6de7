import { INSTANCE_CONTROL_VERSION, type InstanceControl, type InstanceState } from '@chi/spec';

/** The instance-control operations and their path segment. */
export type InstanceControlOperation = 'export' | 'import' | 'erase';

/**
 * The path of an instance-control operation under an OpenAI-compatible base URL:
 * `<base>/chi/instances/{instanceId}/{operation}`, the instance ID percent-encoded (it holds `/`).
 *
 * @example
 * ```ts
 * instanceControlUrl('http://127.0.0.1:8080/v1', 'chi-3f2a9c0b1d4e/window/divergence.w1.A', 'erase');
 * // 'http://127.0.0.1:8080/v1/chi/instances/chi-3f2a9c0b1d4e%2Fwindow%2Fdivergence.w1.A/erase'
 * ```
 */
export function instanceControlUrl(
  baseUrl: string,
  instanceId: string,
  operation: InstanceControlOperation,
): string {
  return `${baseUrl.replace(/\/+$/, '')}/chi/instances/${encodeURIComponent(instanceId)}/${operation}`;
}

/** The instance ID and operation an instance-control path names, or null for any other path. */
export function parseInstanceControlPath(
  path: string,
): { readonly instanceId: string; readonly operation: InstanceControlOperation } | null {
  const match = /^(?:\/v1)?\/chi\/instances\/([^/]+)\/(export|import|erase)$/.exec(path);
  if (match === null) return null;
  try {
    return {
      instanceId: decodeURIComponent(match[1] as string),
      operation: match[2] as InstanceControlOperation,
    };
  } catch {
    return null;
  }
}

/** Options of {@link createHttpInstanceControl}. */
export interface HttpInstanceControlOptions {
  /** The endpoint's OpenAI-compatible base URL, e.g. `http://127.0.0.1:8080/v1`. */
  readonly baseUrl: string;
  /** Sent as `Authorization: Bearer ...` when given (read from the environment, never stored). */
  readonly apiKey?: string;
  readonly fetch?: typeof globalThis.fetch;
}

function readState(body: unknown, instanceId: string): InstanceState {
  const bytes = (body as { bytesStored?: unknown } | null)?.bytesStored;
  if (
    typeof bytes !== 'number' ||
    !Number.isInteger(bytes) ||
    bytes < 0 ||
    !('state' in Object(body))
  )
    throw new Error(
      `instance control: the export of ${instanceId} is not { state, bytesStored } with bytesStored a count`,
    );
  return { state: (body as { state: unknown }).state, bytesStored: bytes };
}

/**
 * The instance-control extension (`chi-instance-control-v1`) of an OpenAI-compatible endpoint
 * that declares it: `POST <base>/chi/instances/{id}/export|import|erase` with JSON bodies. A
 * status other than 2xx rejects with the status and the body's message: an operation that failed
 * is never taken as done.
 */
export function createHttpInstanceControl(options: HttpInstanceControlOptions): InstanceControl {
  const doFetch = options.fetch ?? globalThis.fetch;
  const call = async (
    instanceId: string,
    operation: InstanceControlOperation,
    body: unknown,
  ): Promise<unknown> => {
    const response = await doFetch(instanceControlUrl(options.baseUrl, instanceId, operation), {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(options.apiKey === undefined ? {} : { authorization: `Bearer ${options.apiKey}` }),
      },
      body: JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok)
      throw new Error(
        `instance control: ${operation} of ${instanceId} answered HTTP ${response.status}: ${text.slice(0, 300)}`,
      );
    return text === '' ? null : (JSON.parse(text) as unknown);
  };
  return {
    version: INSTANCE_CONTROL_VERSION,
    exportState: async (instanceId) => readState(await call(instanceId, 'export', {}), instanceId),
    importState: async (instanceId, state) => {
      await call(instanceId, 'import', state);
    },
    erase: async (instanceId) => {
      await call(instanceId, 'erase', {});
    },
  };
}
