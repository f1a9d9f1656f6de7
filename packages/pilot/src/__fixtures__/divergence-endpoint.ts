import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ChatMessage, ChatModel } from '@chi/spec';
import { createDivergenceInstanceModel } from '../divergence/scripted-divergence';
import { createScriptedModel } from '../scripted/scripted-systems';

/** What the endpoint does with one scored request (by its ordinal since the last arming). */
export type EndpointBehaviour = 'answer' | 'hold' | 'no-route';

/**
 * An OpenAI-compatible endpoint on 127.0.0.1 serving the divergence `notebook-follower` scripted
 * system as `scripted/notebook-follower` (declared `chi-scripted` at `GET /models`, so the CLI
 * labels it a scripted baseline). Replies are a pure function of the request body (the response
 * ID is the body's hash, the timestamp fixed), so two runs that send the same requests publish the
 * same bytes. Smoke requests (they ask for `smoke-1`) are answered by the pilot's scripted
 * `latest-wins`, or garbled with `failSmoke`. Each scored reply reports `costUsd` (default 0). `armNth` makes the k-th scored request from then on
 * held (received, never answered: a request in flight for as long as the test wants) or refused
 * with HTTP 404 (`no_route`, an infrastructure failure).
 */
export interface DivergenceEndpoint {
  readonly baseUrl: string;
  readonly model: string;
  /** Arms the `ordinal`-th scored request from now on; resolves once it was received. */
  armNth(ordinal: number, behaviour: Exclude<EndpointBehaviour, 'answer'>): Promise<void>;
  /** Scored requests received since start. */
  scored(): number;
  /** Answers every held request now (as if the model had been slow), so it settles. */
  releaseHeld(): Promise<void>;
  close(): Promise<void>;
}

const MODEL = 'scripted/notebook-follower';

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

function send(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}

async function answer(model: ChatModel, body: string, messages: ChatMessage[], costUsd = 0) {
  const result = await model.generate({ requestId: 'served', messages });
  return {
    id: `gen-${createHash('sha256').update(body).digest('hex').slice(0, 24)}`,
    object: 'chat.completion',
    created: 1788220800,
    model: MODEL,
    choices: [
      { index: 0, message: { role: 'assistant', content: result.text }, finish_reason: 'stop' },
    ],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2, cost: costUsd },
  };
}

/** Starts a {@link DivergenceEndpoint}. */
export async function startDivergenceEndpoint(
  options: { readonly failSmoke?: boolean; readonly costUsd?: number } = {},
): Promise<DivergenceEndpoint> {
  const divergence = createDivergenceInstanceModel('notebook-follower', 7);
  const smoke = createScriptedModel('latest-wins');
  let scored = 0;
  let armed: {
    ordinal: number;
    behaviour: Exclude<EndpointBehaviour, 'answer'>;
    resolve: () => void;
  } | null = null;
  const held = new Set<ServerResponse>();
  const waiting = new Map<ServerResponse, () => Promise<void>>();
  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    if (request.method === 'GET') {
      const entry = {
        id: MODEL,
        object: 'model',
        owned_by: 'chi-scripted',
        chi: {
          uncappedNotebook: false,
          scripted: { seed: 7, declaredNoise: {}, description: 'divergence notebook follower' },
        },
      };
      return send(response, 200, { object: 'list', data: [entry] });
    }
    const body = await readBody(request);
    const parsed = JSON.parse(body) as { model?: string; messages: ChatMessage[] };
    if (parsed.model !== MODEL)
      return send(response, 404, { error: { message: `unknown model ${parsed.model}` } });
    if (body.includes('smoke-1')) {
      if (options.failSmoke === true) {
        const reply = await answer(smoke, body, parsed.messages);
        return send(response, 200, {
          ...reply,
          choices: [{ index: 0, message: { role: 'assistant', content: 'no' }, finish_reason: 'stop' }],
        });
      }
      return send(response, 200, await answer(smoke, body, parsed.messages));
    }
    scored += 1;
    if (armed !== null && scored === armed.ordinal) {
      const { behaviour, resolve } = armed;
      armed = null;
      resolve();
      if (behaviour === 'hold') {
        held.add(response);
        waiting.set(response, async () =>
          send(response, 200, await answer(divergence, body, parsed.messages, options.costUsd)),
        );
        return;
      }
      return send(response, 404, { error: { message: 'No endpoints found (test)' } });
    }
    return send(response, 200, await answer(divergence, body, parsed.messages, options.costUsd));
  };
  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) send(response, 500, { error: { message: String(error) } });
      else response.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    model: MODEL,
    armNth(ordinal, behaviour) {
      const base = scored;
      return new Promise((resolve) => {
        armed = { ordinal: base + ordinal, behaviour, resolve };
      });
    },
    scored: () => scored,
    async releaseHeld() {
      const answers = [...waiting.values()];
      waiting.clear();
      held.clear();
      await Promise.all(answers.map((reply) => reply()));
    },
    async close() {
      for (const response of held) response.destroy();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
