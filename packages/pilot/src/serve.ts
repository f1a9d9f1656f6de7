import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type ChatMessage, ChatMessageSchema, InvalidArgumentError } from '@chi/spec';
import { utf8ByteLength } from './notebook';
import { createScriptedModel, DEFAULT_SCRIPTED_SEED, scriptedDefinition } from './scripted-systems';

/** Options of {@link serveScriptedSystem}. */
export interface ServeOptions {
  /** The scripted system to serve. */
  readonly system: string;
  readonly seed?: number;
  /** Loopback only: `127.0.0.1` by default. */
  readonly host?: string;
  /** 0 (the default) picks a free port. */
  readonly port?: number;
  /** Largest request body accepted, in bytes (default 32 MiB). */
  readonly maxBodyBytes?: number;
}

/** A running server. */
export interface ScriptedServer {
  /** Base URL for an OpenAI-compatible client, e.g. `http://127.0.0.1:43127/v1`. */
  readonly baseUrl: string;
  readonly port: number;
  /** The served model name (`scripted/<system>`). */
  readonly model: string;
  /** Requests answered so far. */
  requestCount(): number;
  close(): Promise<void>;
}

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

function send(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
  });
  response.end(text);
}

async function readBody(request: IncomingMessage, maxBytes: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > maxBytes)
      throw new InvalidArgumentError('body', `request body larger than ${maxBytes} bytes`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Serves a scripted reference system as an OpenAI-compatible endpoint on loopback:
 * `POST /v1/chat/completions` (and `/chat/completions`) and `GET /v1/models`. Replies are the
 * in-process system's replies byte for byte (they depend only on the prompt and the seed), so a
 * pilot run through the real HTTP transport scores exactly like an in-process run. Usage reports
 * a rough token count (UTF-8 bytes / 4) and a cost of 0.
 *
 * @example
 * ```ts
 * const server = await serveScriptedSystem({ system: 'capacity-keeper' });
 * // createOpenRouterModel({ mode: 'openai-compatible', baseURL: server.baseUrl, model: server.model })
 * await server.close();
 * ```
 */
export async function serveScriptedSystem(options: ServeOptions): Promise<ScriptedServer> {
  const definition = scriptedDefinition(options.system);
  const host = options.host ?? '127.0.0.1';
  if (!LOOPBACK.has(host))
    throw new InvalidArgumentError(
      'host',
      `expected a loopback address (127.0.0.1, ::1, localhost), found ${JSON.stringify(host)}`,
    );
  const model = createScriptedModel(definition.name, {
    seed: options.seed ?? DEFAULT_SCRIPTED_SEED,
  });
  const maxBodyBytes = options.maxBodyBytes ?? 32 * 1024 * 1024;
  let served = 0;

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const path = (request.url ?? '/').split('?')[0] ?? '/';
    if (request.method === 'GET' && (path === '/v1/models' || path === '/models')) {
      send(response, 200, {
        object: 'list',
        data: [{ id: model.modelId, object: 'model', owned_by: 'chi-scripted' }],
      });
      return;
    }
    if (
      request.method !== 'POST' ||
      (path !== '/v1/chat/completions' && path !== '/chat/completions')
    ) {
      send(response, 404, {
        error: { message: `no route ${request.method} ${path}`, type: 'not_found' },
      });
      return;
    }
    let body: { messages?: unknown; model?: unknown };
    try {
      body = JSON.parse(await readBody(request, maxBodyBytes)) as typeof body;
    } catch (error) {
      send(response, 400, {
        error: {
          message: `invalid request body: ${(error as Error).message}`,
          type: 'invalid_request_error',
        },
      });
      return;
    }
    const parsed = ChatMessageSchema.array().min(1).safeParse(body.messages);
    if (!parsed.success) {
      send(response, 400, {
        error: {
          message: 'messages must be a non-empty array of {role, content}',
          type: 'invalid_request_error',
        },
      });
      return;
    }
    const messages: ChatMessage[] = parsed.data;
    served += 1;
    const result = await model.generate({ requestId: `served-${served}`, messages });
    const returnedModel = typeof body.model === 'string' ? body.model : model.modelId;
    if (result.text === null) {
      // An error delivered with HTTP 200: the transport records it as invalid_response, as in process.
      send(response, 200, {
        error: { message: result.failureDetail ?? result.failure, code: 422 },
      });
      return;
    }
    const promptTokens = Math.ceil(
      messages.reduce((sum, message) => sum + utf8ByteLength(message.content), 0) / 4,
    );
    const completionTokens = Math.ceil(utf8ByteLength(result.text) / 4);
    send(response, 200, {
      id: result.generationId,
      object: 'chat.completion',
      created: Math.floor(Date.parse(result.finishedAt) / 1000),
      model: returnedModel,
      choices: [
        { index: 0, message: { role: 'assistant', content: result.text }, finish_reason: 'stop' },
      ],
      usage: {
        prompt_tokens: promptTokens,
        completion_tokens: completionTokens,
        total_tokens: promptTokens + completionTokens,
        cost: 0,
      },
    });
  };

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent)
        send(response, 500, { error: { message: (error as Error).message, type: 'server_error' } });
      else response.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const urlHost = host === '::1' ? '[::1]' : host;
  return {
    baseUrl: `http://${urlHost}:${port}/v1`,
    port,
    model: model.modelId,
    requestCount: () => served,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error === undefined ? resolve() : reject(error)));
        server.closeAllConnections();
      }),
  };
}
