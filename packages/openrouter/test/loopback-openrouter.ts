import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** How the loopback server answers one chat-completions request. */
export type Fault =
  | {
      readonly kind: 'ok';
      readonly content?: string;
      /** `usage.cost`; null leaves it out. Default 0.0001. */
      readonly costUsd?: number | null;
      /** Leave out the whole usage object. */
      readonly noUsage?: boolean;
      readonly completionTokens?: number;
      readonly finishReason?: string;
      readonly provider?: string;
      readonly model?: string;
      /** A string echoed in the message's `refusal` field (to test secret scrubbing). */
      readonly echo?: string;
    }
  | {
      readonly kind: 'status';
      readonly status: number;
      readonly retryAfter?: string;
      readonly body?: string;
      /** A body sent as it is (text/plain), e.g. not JSON. */
      readonly rawBody?: string;
      readonly generationId?: string;
    }
  | { readonly kind: 'reset' }
  | { readonly kind: 'reset_after_headers' }
  | { readonly kind: 'hang' }
  | { readonly kind: 'hang_after_headers' }
  | { readonly kind: 'error_in_200'; readonly costUsd?: number }
  | { readonly kind: 'finish_error' }
  | { readonly kind: 'malformed'; readonly generationId?: string };

/** One request the server received. */
export interface ReceivedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly rawBody: string;
  /** Parsed JSON body (chat completions only). */
  readonly body: Record<string, unknown> | null;
}

/** Options of {@link startLoopbackOpenRouter}. */
export interface LoopbackOptions {
  /** Decides the answer to each chat-completions request; `ok` by default. */
  readonly onCompletion?: (request: ReceivedRequest, index: number) => Fault | Promise<Fault>;
  /** `GET /models` data. */
  readonly models?: readonly unknown[];
  /** `GET /models/{author}/{slug}/endpoints` endpoints, by model ID. */
  readonly endpoints?: Readonly<Record<string, readonly unknown[]>>;
  /** Answer `GET /models` with this status instead. */
  readonly modelsStatus?: number;
  /** Error message of that status (`nope` by default), e.g. an echo of the key. */
  readonly modelsErrorMessage?: string;
  /** `GET /generation?id=`: total cost, after answering 404 `notFoundTimes` times. */
  readonly generations?: Readonly<
    Record<string, { readonly totalCostUsd: number; readonly notFoundTimes?: number }>
  >;
}

/** A running loopback OpenRouter. */
export interface LoopbackOpenRouter {
  /** e.g. `http://127.0.0.1:40123/api/v1` */
  readonly baseURL: string;
  /** Every request received, in arrival order. */
  readonly received: ReceivedRequest[];
  close(): Promise<void>;
}

function completionBody(
  fault: Extract<Fault, { kind: 'ok' }>,
  requestBody: Record<string, unknown> | null,
  id: string,
): unknown {
  const completionTokens = fault.completionTokens ?? 12;
  return {
    id,
    provider: fault.provider ?? 'Moonshot AI',
    model: fault.model ?? requestBody?.model ?? 'unknown/model',
    object: 'chat.completion',
    created: 1_767_000_000,
    choices: [
      {
        index: 0,
        finish_reason: fault.finishReason ?? 'stop',
        native_finish_reason: fault.finishReason ?? 'stop',
        message: {
          role: 'assistant',
          content: fault.content ?? 'OK',
          reasoning: 'HIDDEN-REASONING-TEXT that must never be published',
          reasoning_details: [{ type: 'reasoning.text', text: 'HIDDEN-REASONING-TEXT' }],
          ...(fault.echo === undefined ? {} : { refusal: fault.echo }),
        },
      },
    ],
    ...(fault.noUsage === true
      ? {}
      : {
          usage: {
            prompt_tokens: 40,
            completion_tokens: completionTokens,
            total_tokens: 40 + completionTokens,
            prompt_tokens_details: { cached_tokens: 0 },
            completion_tokens_details: { reasoning_tokens: 5 },
            ...(fault.costUsd === null ? {} : { cost: fault.costUsd ?? 0.0001 }),
            is_byok: false,
          },
        }),
  };
}

function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  response.end(text);
}

/**
 * Starts an HTTP server on 127.0.0.1 (random port) that speaks OpenRouter's API shapes: chat
 * completions with usage and cost, `GET /generation`, `GET /models` and the endpoints list, and
 * injects the faults a {@link Fault} names.
 */
export async function startLoopbackOpenRouter(
  options: LoopbackOptions = {},
): Promise<LoopbackOpenRouter> {
  const received: ReceivedRequest[] = [];
  const lookups = new Map<string, number>();
  let completions = 0;

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const rawBody = Buffer.concat(chunks).toString('utf8');
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const path = url.pathname.replace(/^\/api\/v1/, '');
    let body: Record<string, unknown> | null = null;
    if (path === '/chat/completions') {
      try {
        body = JSON.parse(rawBody) as Record<string, unknown>;
      } catch {
        body = null;
      }
    }
    const entry: ReceivedRequest = {
      method: request.method ?? 'GET',
      path: `${path}${url.search}`,
      headers: request.headers,
      rawBody,
      body,
    };
    received.push(entry);

    if (request.method === 'GET' && path === '/models') {
      if (options.modelsStatus !== undefined)
        return sendJson(response, options.modelsStatus, {
          error: { code: options.modelsStatus, message: options.modelsErrorMessage ?? 'nope' },
        });
      return sendJson(response, 200, { data: options.models ?? [] });
    }
    const endpointsMatch = /^\/models\/([^/]+)\/([^/]+)\/endpoints$/.exec(path);
    if (request.method === 'GET' && endpointsMatch !== null) {
      const id = `${decodeURIComponent(endpointsMatch[1]!)}/${decodeURIComponent(endpointsMatch[2]!)}`;
      const list = options.endpoints?.[id];
      if (list === undefined)
        return sendJson(response, 404, { error: { code: 404, message: 'model not found' } });
      return sendJson(response, 200, { data: { id, name: id, endpoints: list } });
    }
    if (request.method === 'GET' && path === '/generation') {
      const id = url.searchParams.get('id') ?? '';
      const generation = options.generations?.[id];
      const seen = lookups.get(id) ?? 0;
      lookups.set(id, seen + 1);
      if (generation === undefined || seen < (generation.notFoundTimes ?? 0)) {
        return sendJson(response, 404, { error: { code: 404, message: 'generation not found' } });
      }
      return sendJson(response, 200, {
        data: { id, total_cost: generation.totalCostUsd, tokens_prompt: 40, tokens_completion: 12 },
      });
    }
    if (request.method !== 'POST' || path !== '/chat/completions') {
      return sendJson(response, 404, { error: { code: 404, message: `no route ${path}` } });
    }

    const index = completions++;
    const id = `gen-${index}`;
    const fault = (await options.onCompletion?.(entry, index)) ?? { kind: 'ok' };
    switch (fault.kind) {
      case 'ok':
        return sendJson(response, 200, completionBody(fault, body, id), { 'x-generation-id': id });
      case 'status':
        if (fault.rawBody !== undefined) {
          response.writeHead(fault.status, { 'content-type': 'text/plain' });
          response.end(fault.rawBody);
          return;
        }
        return sendJson(
          response,
          fault.status,
          fault.body === undefined
            ? {
                error: {
                  code: fault.status,
                  message: `injected ${fault.status}`,
                  metadata: { error_type: 'injected' },
                },
              }
            : JSON.parse(fault.body),
          {
            ...(fault.retryAfter === undefined ? {} : { 'retry-after': fault.retryAfter }),
            ...(fault.generationId === undefined ? {} : { 'x-generation-id': fault.generationId }),
          },
        );
      case 'reset':
        request.socket.destroy();
        return;
      case 'reset_after_headers':
        response.writeHead(200, {
          'content-type': 'application/json',
          'content-length': '1000',
          'x-generation-id': id,
        });
        response.write('{"id":"');
        setTimeout(() => request.socket.destroy(), 5);
        return;
      case 'hang':
        return; // never answers; the client's deadline ends it
      case 'hang_after_headers':
        response.writeHead(200, { 'content-type': 'application/json', 'x-generation-id': id });
        response.write('{"id":');
        return;
      case 'error_in_200':
        return sendJson(response, 200, {
          error: {
            code: 502,
            message: 'upstream provider failed mid-request',
            metadata: { provider_name: 'Moonshot AI' },
          },
          ...(fault.costUsd === undefined
            ? {}
            : { usage: { prompt_tokens: 40, completion_tokens: 0, cost: fault.costUsd } }),
        });
      case 'finish_error':
        return sendJson(response, 200, {
          id,
          model: body?.model,
          provider: 'Moonshot AI',
          choices: [
            {
              index: 0,
              finish_reason: 'error',
              message: { role: 'assistant', content: '' },
              error: { code: 502, message: 'provider error' },
            },
          ],
          usage: { prompt_tokens: 40, completion_tokens: 0, total_tokens: 40, cost: 0 },
        });
      case 'malformed':
        response.writeHead(200, {
          'content-type': 'application/json',
          ...(fault.generationId === undefined ? {} : { 'x-generation-id': fault.generationId }),
        });
        response.end('{"id":"gen-x","choices":[{"message":');
        return;
    }
  }

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) sendJson(response, 599, { error: { message: String(error) } });
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/api/v1`,
    received,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
