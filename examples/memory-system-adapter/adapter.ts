/**
 * The adapter: an HTTP server that puts a memory product (`product-memory.ts`) behind the protocol
 * `chi pilot --base-url ... --memory system` speaks. It is the only file a memory-system author
 * writes; see README.md, step by step.
 *
 * - `GET /v1/models`: one model entry, declaring the instance-control extension in `chi`.
 * - `POST /v1/chat/completions`: OpenAI's chat completions (non-streaming). The memory instance is
 *   the `X-Chi-Instance` header (one product user per instance: a new instance ID is a blank
 *   memory), the session `X-Chi-Session`. The task is the prompt's `REQUEST` JSON block.
 * - `POST /v1/chi/instances/{id}/export|import|erase`: the instance-control extension
 *   (`chi-instance-control-v1`), on the product's own export, import and delete.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Memory, MemoryProduct, ProductDump } from './product-memory';

/** The model name the adapter serves (`chi pilot --models acme/memory`). */
export const ADAPTER_MODEL = 'acme/memory';

/** A question of a probe: the key asked, and an optional as-of cutoff. */
interface Question {
  readonly id: string;
  readonly key: string;
  readonly asOf: string | null;
}

/** The JSON between `BEGIN <NAME> JSON` and `END <NAME> JSON` lines of a prompt, if any. */
export function jsonBlock(prompt: string, name: string): unknown {
  const lines = prompt.split('\n');
  const begin = lines.indexOf(`BEGIN ${name} JSON`);
  const end = lines.indexOf(`END ${name} JSON`, begin + 1);
  if (begin < 0 || end < 0) return undefined;
  return JSON.parse(lines.slice(begin + 1, end).join('\n')) as unknown;
}

/** The protocol's precedence: authority 2 over 1, then the later event time; as-of cutoffs first. */
function answer(memories: readonly Memory[], question: Question) {
  const cutoff = question.asOf === null ? Number.POSITIVE_INFINITY : Date.parse(question.asOf);
  let best: Memory | undefined;
  for (const memory of memories) {
    if (Date.parse(memory.eventTime) > cutoff) continue;
    if (
      best === undefined ||
      memory.authority > best.authority ||
      (memory.authority === best.authority && memory.eventTime > best.eventTime)
    )
      best = memory;
  }
  return { id: question.id, value: best?.value ?? null, source: best?.source ?? null };
}

/**
 * The reply to one prompt for one product user. Encode sessions are stored; probes are answered
 * from what the product finds (or, for the oracle control, from the records in the prompt);
 * the smoke check copies its question; any other task is answered with an abstention, so it
 * scores as a system that does not take part (the README says how to run only the memory
 * experiment).
 */
export function reply(product: MemoryProduct, user: string, prompt: string): string | null {
  const request = jsonBlock(prompt, 'REQUEST') as { task?: string } | undefined;
  const questions = (jsonBlock(prompt, 'QUESTIONS') ?? []) as Question[];
  switch (request?.task) {
    case 'memory_encode': {
      const records = jsonBlock(prompt, 'RECORDS') as Memory[];
      product.add(user, records);
      return JSON.stringify({ stored: records.length });
    }
    case 'memory_probe':
      return JSON.stringify(questions.map((q) => answer(product.search(user, q.key), q)));
    case 'memory_probe_oracle': {
      const records = jsonBlock(prompt, 'RECORDS') as Memory[];
      return JSON.stringify(
        questions.map((q) =>
          answer(
            records.filter((record) => record.key === q.key),
            q,
          ),
        ),
      );
    }
    case 'smoke':
      return JSON.stringify(questions);
    default:
      return null;
  }
}

function send(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
  });
  response.end(text);
}

function error(response: ServerResponse, status: number, message: string): void {
  send(response, status, {
    error: { message, type: 'invalid_request_error', param: null, code: null },
  });
}

async function readJson(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text === '' ? {} : (JSON.parse(text) as unknown);
}

/** A chat completion: the reply of the product user named by `X-Chi-Instance`. */
async function completion(
  product: MemoryProduct,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const body = (await readJson(request)) as {
    model?: string;
    messages?: { role: string; content: string }[];
  };
  if (body.model !== ADAPTER_MODEL)
    return error(response, 404, `The model ${JSON.stringify(body.model)} does not exist`);
  const prompt = (body.messages ?? []).map((message) => message.content).join('\n\n');
  const instance = request.headers['x-chi-instance'];
  // Every memory session names its instance; only the smoke check (no memory) comes without one.
  const smoke = (jsonBlock(prompt, 'REQUEST') as { task?: string } | undefined)?.task === 'smoke';
  if (!smoke && (typeof instance !== 'string' || instance === ''))
    return error(response, 400, 'X-Chi-Instance is required: run chi pilot with --memory system');
  const text = reply(product, typeof instance === 'string' ? instance : '', prompt);
  if (text === null) return error(response, 422, 'this adapter answers only memory tasks');
  send(response, 200, {
    id: `acme-${request.headers['x-chi-session'] ?? 'session'}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: ADAPTER_MODEL,
    choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
  });
}

/** The instance-control extension on the product's export, import and delete. */
async function control(
  product: MemoryProduct,
  instance: string,
  operation: string,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const body = (await readJson(request)) as { state?: ProductDump };
  if (operation === 'export')
    return send(response, 200, {
      state: product.exportUser(instance),
      bytesStored: product.bytesStored(instance),
    });
  if (operation === 'import') product.importUser(instance, body.state as ProductDump);
  else product.deleteUser(instance);
  send(response, 200, {});
}

/** A running adapter. */
export interface Adapter {
  /** For `chi pilot --base-url`, e.g. `http://127.0.0.1:43127/v1`. */
  readonly baseUrl: string;
  close(): Promise<void>;
}

/** Starts the adapter on `host:port` (port 0: a free one) in front of `product`. */
export async function startAdapter(
  product: MemoryProduct,
  options: { readonly host?: string; readonly port?: number } = {},
): Promise<Adapter> {
  const server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0] ?? '/';
    const controlPath = /^\/v1\/chi\/instances\/([^/]+)\/(export|import|erase)$/.exec(path);
    const handled =
      request.method === 'GET' && path === '/v1/models'
        ? Promise.resolve(
            send(response, 200, {
              object: 'list',
              data: [
                {
                  id: ADAPTER_MODEL,
                  object: 'model',
                  created: 0,
                  owned_by: 'acme',
                  chi: { instanceControl: 'chi-instance-control-v1' },
                },
              ],
            }),
          )
        : request.method === 'POST' && path === '/v1/chat/completions'
          ? completion(product, request, response)
          : request.method === 'POST' && controlPath !== null
            ? control(
                product,
                decodeURIComponent(controlPath[1] as string),
                controlPath[2] as string,
                request,
                response,
              )
            : Promise.resolve(error(response, 404, `no route ${request.method} ${path}`));
    handled.catch((failure: unknown) => error(response, 400, (failure as Error).message));
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://${host}:${port}/v1`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((failure) => (failure === undefined ? resolve() : reject(failure)));
        server.closeAllConnections();
      }),
  };
}
