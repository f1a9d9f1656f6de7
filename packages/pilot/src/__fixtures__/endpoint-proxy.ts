/** A fault the proxy injects into one chat completion instead of forwarding it. */
export type EndpointFault =
  | {
      readonly kind: 'status';
      readonly status: number;
      readonly body?: string;
      /** Sent as Retry-After (e.g. '0': retry at once). */
      readonly retryAfter?: string;
    }
  /** A connection reset before any response (nothing reached the server). */
  | { readonly kind: 'reset' }
  /** An HTTP 500 whose body echoes the request's Authorization header `offset` characters in. */
  | { readonly kind: 'echo-authorization'; readonly offset: number }
  /** A 200 whose body is not JSON. */
  | { readonly kind: 'malformed' };

/** Options of {@link endpointProxy}. */
export interface EndpointProxyOptions {
  /** `usage.cost` put on every forwarded completion (USD); left as the server sent it otherwise. */
  readonly costUsd?: number;
  /** Present the served scripted model as a live model (the `/models` list loses `chi-scripted`). */
  readonly asLiveModel?: boolean;
  /** The fault for completion number `index` (from 0), or null to forward it. */
  readonly faultFor?: (index: number) => EndpointFault | null;
}

/**
 * An injectable `fetch` in front of a loopback `chi serve` endpoint: it records every request's
 * host and Authorization header, can present the scripted model as a live one with a reported
 * `usage.cost`, and injects faults deterministically by completion index.
 */
export function endpointProxy(options: EndpointProxyOptions = {}) {
  const authorizations: { host: string; path: string; authorization: string | null }[] = [];
  let completions = 0;
  let forwarded = 0;
  const fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    const authorization = request.headers.get('authorization');
    authorizations.push({ host: url.host, path: url.pathname, authorization });
    if (request.method === 'GET' && url.pathname.endsWith('/models')) {
      const response = await globalThis.fetch(request);
      if (options.asLiveModel !== true) return response;
      const body = (await response.json()) as { data: { owned_by: string }[] };
      for (const model of body.data) model.owned_by = 'someone';
      return Response.json(body);
    }
    if (request.method !== 'POST' || !url.pathname.endsWith('/chat/completions'))
      return globalThis.fetch(request);
    const index = completions;
    completions += 1;
    const fault = options.faultFor?.(index) ?? null;
    if (fault?.kind === 'reset')
      throw new TypeError('fetch failed', { cause: Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }) });
    if (fault?.kind === 'status')
      return new Response(fault.body ?? JSON.stringify({ error: { message: `injected ${fault.status}` } }), {
        status: fault.status,
        headers: {
          'content-type': 'application/json',
          ...(fault.retryAfter === undefined ? {} : { 'retry-after': fault.retryAfter }),
        },
      });
    if (fault?.kind === 'echo-authorization')
      return new Response(`${'e'.repeat(fault.offset)}Authorization: ${authorization ?? ''} was rejected upstream`, {
        status: 500,
        // retry at once: the soak stays fast
        headers: { 'content-type': 'text/plain', 'retry-after': '0' },
      });
    if (fault?.kind === 'malformed')
      return new Response('{"choices": [', { status: 200, headers: { 'content-type': 'application/json' } });
    forwarded += 1;
    const response = await globalThis.fetch(request);
    if (options.costUsd === undefined) return response;
    const body = (await response.json()) as { usage?: { cost?: number } };
    if (body.usage !== undefined) body.usage.cost = options.costUsd;
    return Response.json(body, { status: response.status });
  };
  return {
    fetch: fetch as typeof globalThis.fetch,
    authorizations,
    completions: () => completions,
    forwarded: () => forwarded,
  };
}
