import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type ScriptedServer, serveScriptedSystem } from '../endpoints/serve';

/** A request the gateway is holding: received in full, never answered. */
export interface HeldRequest {
  /** The `model` field of the request body. */
  readonly model: string;
  /** The raw request body. */
  readonly body: string;
  /** Answers the held request at last (forwarded to its scripted system). */
  answer(): Promise<void>;
}

/**
 * One OpenAI-compatible endpoint on 127.0.0.1 in front of several `chi serve` scripted systems
 * (routed by the request's `model`), which can be told to hold the k-th scored request: that
 * request reaches the gateway and is never answered, so the client has a request in flight for as
 * long as the test wants. Tests use it to kill a run while a request is open, deterministically
 * instead of hoping a kill lands in a sub-millisecond window.
 */
export interface HeldGateway {
  /** Base URL for `--base-url`. */
  readonly baseUrl: string;
  /** Served model names (`scripted/<system>`), in the order given. */
  readonly models: readonly string[];
  /**
   * Holds the `ordinal`-th scored request (1-based) received from now on; resolves once it is
   * held. Smoke requests (which ask for the `smoke-1` answer) are forwarded and not counted.
   */
  holdNth(ordinal: number): Promise<HeldRequest>;
  /** Scored requests received since the last {@link holdNth} (or since start). */
  scoredSinceArmed(): number;
  /** Answers every held request now (as if the model had been slow), so it settles. */
  releaseHeld(): Promise<void>;
  close(): Promise<void>;
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

async function forward(
  backend: ScriptedServer,
  request: IncomingMessage,
  body: string,
  response: ServerResponse,
): Promise<void> {
  const path = (request.url ?? '/').replace(/^\/v1/, '');
  const upstream = await fetch(`${backend.baseUrl}${path}`, {
    method: request.method ?? 'POST',
    headers: { 'content-type': 'application/json' },
    ...(request.method === 'GET' ? {} : { body }),
  });
  const text = await upstream.text();
  response.writeHead(upstream.status, { 'content-type': 'application/json' });
  response.end(text);
}

/** Starts a {@link HeldGateway} for the named scripted systems. */
export async function startHeldGateway(systems: readonly string[]): Promise<HeldGateway> {
  const backends = new Map<string, ScriptedServer>();
  for (const system of systems) {
    const server = await serveScriptedSystem({ system });
    backends.set(server.model, server);
  }
  let scored = 0;
  let armed: { ordinal: number; resolve: (held: HeldRequest) => void } | null = null;
  const open = new Set<ServerResponse>();
  const waiting = new Map<ServerResponse, () => Promise<void>>();

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const path = (request.url ?? '/').split('?')[0] ?? '/';
    if (request.method === 'GET' && path.endsWith('/models')) {
      const data = [...backends.values()].map((server) => ({
        id: server.model,
        object: 'model',
        owned_by: 'chi-scripted',
      }));
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ object: 'list', data }));
      return;
    }
    const body = await readBody(request);
    const model = (JSON.parse(body) as { model?: unknown }).model;
    const backend = typeof model === 'string' ? backends.get(model) : undefined;
    if (backend === undefined) {
      response.writeHead(404, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: { message: `unknown model ${String(model)}` } }));
      return;
    }
    if (!body.includes('smoke-1')) {
      scored += 1;
      if (armed !== null && scored === armed.ordinal) {
        // Never answered: the connection stays open until the client dies or the gateway closes.
        open.add(response);
        const send = () => forward(backend, request, body, response);
        waiting.set(response, send);
        armed.resolve({
          model: backend.model,
          body,
          answer: async () => {
            waiting.delete(response);
            open.delete(response);
            await send();
          },
        });
        armed = null;
        return;
      }
    }
    await forward(backend, request, body, response);
  };

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) {
        response.writeHead(500, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ error: { message: (error as Error).message } }));
      } else response.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    models: [...backends.keys()],
    holdNth(ordinal) {
      if (!Number.isInteger(ordinal) || ordinal < 1)
        throw new RangeError(`holdNth: expected a positive integer, found ${ordinal}`);
      scored = 0;
      return new Promise((resolve) => {
        armed = { ordinal, resolve };
      });
    },
    scoredSinceArmed: () => scored,
    async releaseHeld() {
      const answers = [...waiting.values()];
      waiting.clear();
      open.clear();
      await Promise.all(answers.map((answer) => answer()));
    },
    async close() {
      for (const response of open) response.destroy();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await Promise.all([...backends.values()].map((backend) => backend.close()));
    },
  };
}
