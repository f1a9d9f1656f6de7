import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { utf8ByteLength } from '@chi/experiments/internal';
import { instanceFromHeaders, parseInstanceControlPath } from '@chi/openrouter';
import {
  type ChatMessage,
  type ChatModel,
  type InstanceControl,
  InvalidArgumentError,
} from '@chi/spec';
import {
  createMemoryReferenceModel,
  isMemoryReference,
  memoryReferenceSpec,
} from '../memory-systems/reference-systems';
import {
  createScriptedModel,
  DEFAULT_SCRIPTED_SEED,
  declaredNoise,
  scriptedDefinition,
} from '../scripted/scripted-systems';
import {
  type ChatCompletionRequest,
  type OpenAiError,
  openAiError,
  readChatCompletionRequest,
} from './openai-wire';

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
  /** Chat completions answered so far (errors included). */
  requestCount(): number;
  close(): Promise<void>;
}

/**
 * What `chi serve` declares about its model in `GET /v1/models`, beside the OpenAI fields: the
 * scripted system's manifest facts, so a run through HTTP freezes the same declared reference
 * condition (`uncappedNotebook`), seed and noise as an in-process run.
 */
export interface ScriptedModelDeclaration {
  readonly evidenceClass: 'scripted_baseline';
  readonly uncappedNotebook: boolean;
  readonly scripted: {
    readonly seed: number;
    readonly declaredNoise: Record<string, number>;
    readonly description: string;
  };
  /** `system` for a reference memory system (it keeps its own memory); absent otherwise. */
  readonly memory?: 'system';
  /**
   * `chi-instance-control-v1` when the server answers `POST /v1/chi/instances/{id}/export|import|erase`
   * (the reference memory systems `window` and `keyword-store`); absent otherwise.
   */
  readonly instanceControl?: 'chi-instance-control-v1';
}

/**
 * The model `chi serve` answers with and what it declares: a scripted system drawing by the
 * prompt's nonce (HTTP carries only the prompt), or a reference memory system keyed by the
 * request's `X-Chi-Instance` header, declared `memory: system`.
 */
function servedSystem(
  name: string,
  seed: number,
): { model: ChatModel; chi: ScriptedModelDeclaration } {
  if (isMemoryReference(name)) {
    const spec = memoryReferenceSpec(name);
    return {
      model: createMemoryReferenceModel(name),
      chi: {
        evidenceClass: 'scripted_baseline',
        uncappedNotebook: false,
        scripted: spec.scripted as ScriptedModelDeclaration['scripted'],
        memory: 'system',
        ...(spec.instanceControl === undefined ? {} : { instanceControl: spec.instanceControl }),
      },
    };
  }
  const definition = scriptedDefinition(name);
  return {
    model: createScriptedModel(definition.name, { seed, noise: 'prompt' }),
    chi: {
      evidenceClass: 'scripted_baseline',
      uncappedNotebook: definition.uncappedNotebook,
      scripted: {
        seed,
        declaredNoise: declaredNoise(definition),
        description: definition.description,
      },
    },
  };
}

/** One entry of `GET /v1/models` as `chi serve` lists it. */
export interface ScriptedModelEntry {
  readonly id: string;
  readonly object: 'model';
  /** Unix seconds when the server started. */
  readonly created: number;
  readonly owned_by: 'chi-scripted';
  readonly chi: ScriptedModelDeclaration;
}

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);
/** Code points per streamed content chunk: several chunks for any real reply. */
const STREAM_CHUNK_CODE_POINTS = 256;

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
  });
  response.end(text);
}

function sendError(response: ServerResponse, error: OpenAiError): void {
  sendJson(response, error.status, error.body);
}

async function readBody(request: IncomingMessage, maxBytes: number): Promise<string | OpenAiError> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > maxBytes)
      return openAiError(413, `request body larger than ${maxBytes} bytes`, {
        code: 'request_too_large',
      });
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** UTF-8 bytes per token of the server's rough token count (usage and `max_tokens`). */
const BYTES_PER_TOKEN = 4;

function approximateTokens(texts: readonly string[]): number {
  return Math.ceil(texts.reduce((sum, text) => sum + utf8ByteLength(text), 0) / BYTES_PER_TOKEN);
}

/**
 * A reply cut to `maxTokens` of the server's token count (`maxTokens * 4` UTF-8 bytes, whole code
 * points), with the finish reason an OpenAI server gives: `length` when cut, `stop` otherwise.
 */
export function limitReply(
  text: string,
  maxTokens: number | null,
): { readonly text: string; readonly finishReason: 'stop' | 'length' } {
  if (maxTokens === null || approximateTokens([text]) <= maxTokens)
    return { text, finishReason: 'stop' };
  const budget = maxTokens * BYTES_PER_TOKEN;
  let bytes = 0;
  let kept = '';
  for (const point of text) {
    bytes += utf8ByteLength(point);
    if (bytes > budget) break;
    kept += point;
  }
  return { text: kept, finishReason: 'length' };
}

function usageOf(messages: readonly ChatMessage[], text: string) {
  const promptTokens = approximateTokens(messages.map((message) => message.content));
  const completionTokens = approximateTokens([text]);
  return {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
    cost: 0,
  };
}

function codePointChunks(text: string, size: number): string[] {
  const points = Array.from(text);
  const chunks: string[] = [];
  for (let start = 0; start < points.length; start += size)
    chunks.push(points.slice(start, start + size).join(''));
  return chunks;
}

/** Writes a completion as server-sent events, the way OpenAI streams `chat.completion.chunk`s. */
function sendStream(
  response: ServerResponse,
  head: { id: string; created: number; model: string },
  request: ChatCompletionRequest,
  reply: ReturnType<typeof limitReply>,
): void {
  const { text, finishReason } = reply;
  response.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
  const usageField = request.includeUsage ? { usage: null } : {};
  const event = (choices: unknown[], extra: object = usageField): void => {
    response.write(
      `data: ${JSON.stringify({ ...head, object: 'chat.completion.chunk', choices, ...extra })}\n\n`,
    );
  };
  event([{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }]);
  for (const piece of codePointChunks(text, STREAM_CHUNK_CODE_POINTS))
    event([{ index: 0, delta: { content: piece }, finish_reason: null }]);
  event([{ index: 0, delta: {}, finish_reason: finishReason }]);
  if (request.includeUsage) event([], { usage: usageOf(request.messages, text) });
  response.end('data: [DONE]\n\n');
}

function modelPath(path: string): string | null {
  for (const prefix of ['/v1/models/', '/models/']) {
    if (path.startsWith(prefix)) {
      try {
        return decodeURIComponent(path.slice(prefix.length));
      } catch {
        return path.slice(prefix.length);
      }
    }
  }
  return null;
}

function modelNotFound(model: string): OpenAiError {
  return openAiError(404, `The model ${JSON.stringify(model)} does not exist on this server`, {
    param: 'model',
    code: 'model_not_found',
  });
}

/**
 * Answers one instance-control request (`POST /v1/chi/instances/{id}/export|import|erase`):
 * export answers `{ state, bytesStored }`, import reads that body back, erase answers `{}`. A body
 * that is not an exported state is a 400 naming it.
 */
async function controlInstance(
  control: InstanceControl,
  target: NonNullable<ReturnType<typeof parseInstanceControlPath>>,
  request: IncomingMessage,
  response: ServerResponse,
  maxBodyBytes: number,
): Promise<void> {
  const text = await readBody(request, maxBodyBytes);
  if (typeof text !== 'string') return sendError(response, text);
  if (target.operation === 'export')
    return sendJson(response, 200, await control.exportState(target.instanceId));
  if (target.operation === 'erase') {
    await control.erase(target.instanceId);
    return sendJson(response, 200, {});
  }
  try {
    const body = JSON.parse(text) as { state?: unknown; bytesStored?: unknown };
    await control.importState(target.instanceId, {
      state: body.state,
      bytesStored: Number(body.bytesStored ?? 0),
    });
  } catch (error) {
    return sendError(
      response,
      openAiError(400, `import: ${(error as Error).message}`, { param: 'state' }),
    );
  }
  sendJson(response, 200, {});
}

/**
 * Serves a scripted reference system as an OpenAI-compatible endpoint on loopback:
 * `POST /v1/chat/completions` (JSON or, with `stream: true`, server-sent events with the final
 * usage chunk of `stream_options.include_usage`), `GET /v1/models` and `GET /v1/models/{id}`.
 * Errors are 4xx/5xx with OpenAI's `{ error: { message, type, param, code } }` body, never 200;
 * a model name other than `scripted/<system>` is `404 model_not_found`; a request field a
 * scripted system cannot honour (`n` > 1) is a 400 naming it; `max_tokens` (or
 * `max_completion_tokens`) cuts the reply at that many of the server's tokens (UTF-8 bytes / 4)
 * with finish reason `length`, except for a system declared uncapped (`perfect`, a reference
 * condition, whose model entry says so). A scripted system answers only this toolkit's prompts (its
 * `REQUEST` JSON block); any other prompt is `422 unreadable_prompt`. Replies are the
 * in-process system's replies byte for byte (they depend only on the prompt and the seed), and
 * the model entry declares the system's manifest facts (see {@link ScriptedModelDeclaration}),
 * so a pilot run through the real HTTP transport scores exactly like an in-process run. Usage
 * reports a rough token count (UTF-8 bytes / 4) and a cost of 0. A reference memory system that
 * offers the instance-control extension (`window`, `keyword-store`) also answers
 * `POST /v1/chi/instances/{id}/export|import|erase` and declares it in its model entry.
 *
 * @example
 * ```ts
 * const server = await serveScriptedSystem({ system: 'capacity-keeper' });
 * // new OpenAI({ baseURL: server.baseUrl, apiKey: 'unused' }).chat.completions.create({ model: server.model, ... })
 * await server.close();
 * ```
 */
export async function serveScriptedSystem(options: ServeOptions): Promise<ScriptedServer> {
  const host = options.host ?? '127.0.0.1';
  if (!LOOPBACK.has(host))
    throw new InvalidArgumentError(
      'host',
      `expected a loopback address (127.0.0.1, ::1, localhost), found ${JSON.stringify(host)}`,
    );
  const seed = options.seed ?? DEFAULT_SCRIPTED_SEED;
  const { model, chi } = servedSystem(options.system, seed);
  const uncapped = chi.uncappedNotebook;
  const maxBodyBytes = options.maxBodyBytes ?? 32 * 1024 * 1024;
  const entry: ScriptedModelEntry = {
    id: model.modelId,
    object: 'model',
    created: Math.floor(Date.now() / 1000),
    owned_by: 'chi-scripted',
    chi,
  };
  let served = 0;

  const completions = async (request: IncomingMessage, response: ServerResponse) => {
    const text = await readBody(request, maxBodyBytes);
    if (typeof text !== 'string') return sendError(response, text);
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      return sendError(
        response,
        openAiError(400, `the request body is not valid JSON: ${(error as Error).message}`),
      );
    }
    const parsed = readChatCompletionRequest(json);
    if ('status' in parsed) return sendError(response, parsed);
    if (parsed.model !== model.modelId) return sendError(response, modelNotFound(parsed.model));
    served += 1;
    const instance = instanceFromHeaders(request.headers);
    const result = await model.generate({
      requestId: `served-${served}`,
      messages: parsed.messages,
      ...(instance === undefined ? {} : { instance }),
    });
    if (result.text === null) {
      // The system could not read this prompt (not one of the pilot's): a client error, 422.
      // The HTTP transport records it as `http_fatal`, a model failure like the in-process
      // `invalid_response`: never retried, charged 0, the block stays complete.
      return sendError(
        response,
        openAiError(422, result.failureDetail ?? result.failure, {
          param: 'messages',
          code: 'unreadable_prompt',
        }),
      );
    }
    const head = {
      id: result.generationId ?? `scripted-${served}`,
      created: Math.floor(Date.parse(result.finishedAt) / 1000),
      model: model.modelId,
    };
    // `perfect` is a declared reference condition without an output limit (its model entry says
    // `uncappedNotebook: true`): cut over HTTP, it would not be the in-process reference.
    const reply = limitReply(result.text, uncapped ? null : parsed.maxTokens);
    if (parsed.stream) return sendStream(response, head, parsed, reply);
    sendJson(response, 200, {
      ...head,
      object: 'chat.completion',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: reply.text },
          finish_reason: reply.finishReason,
        },
      ],
      usage: usageOf(parsed.messages, reply.text),
    });
  };

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const path = (request.url ?? '/').split('?')[0] ?? '/';
    const control = parseInstanceControlPath(path);
    if (control !== null && model.instanceControl !== undefined) {
      if (request.method !== 'POST')
        return sendError(
          response,
          openAiError(405, `${path}: use POST`, { code: 'method_not_allowed' }),
        );
      return controlInstance(model.instanceControl, control, request, response, maxBodyBytes);
    }
    if (request.method === 'GET' && (path === '/v1/models' || path === '/models'))
      return sendJson(response, 200, { object: 'list', data: [entry] });
    const id = request.method === 'GET' ? modelPath(path) : null;
    if (id !== null)
      return id === entry.id
        ? sendJson(response, 200, entry)
        : sendError(response, modelNotFound(id));
    if (path === '/v1/chat/completions' || path === '/chat/completions') {
      if (request.method === 'POST') return completions(request, response);
      return sendError(
        response,
        openAiError(405, `${request.method ?? 'GET'} ${path}: use POST`, {
          code: 'method_not_allowed',
        }),
      );
    }
    sendError(
      response,
      openAiError(404, `Invalid URL (${request.method ?? 'GET'} ${path})`, {
        type: 'not_found_error',
        code: 'not_found',
      }),
    );
  };

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent)
        sendError(response, openAiError(500, (error as Error).message, { code: 'server_error' }));
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
