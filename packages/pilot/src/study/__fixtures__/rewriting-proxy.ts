import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A loopback proxy in front of an OpenAI-compatible endpoint that can rewrite its replies. */
export interface RewritingProxy {
  /** Base URL of the proxy (`http://127.0.0.1:<port>/v1`). */
  readonly baseUrl: string;
  /** What the completions answer with from now on: a provider name, another model ID. */
  set(rewrite: Rewrite): void;
  /** Chat completions forwarded so far. */
  completions(): number;
  close(): Promise<void>;
}

/** What a proxied completion answers with: its provider, model ID and billed `usage.cost`. */
export interface Rewrite {
  readonly provider?: string;
  readonly model?: string;
  /** USD billed per completion (`usage.cost`, as OpenRouter reports it). */
  readonly costUsd?: number;
}

async function bodyOf(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * A proxy (127.0.0.1, port 0) that forwards every request to `target` (a `chi serve` base URL)
 * and, on a chat completion's JSON answer, sets `provider`, `model` and `usage.cost` as told: what
 * a billed provider and a provider-side change look like from the client (OpenRouter names the
 * provider that served each reply in `provider`, the model ID it ran in `model`, its charge in
 * `usage.cost`).
 */
export async function rewritingProxy(target: string): Promise<RewritingProxy> {
  let rewrite: Rewrite = {};
  let forwarded = 0;
  const server = createServer((request, response) => {
    void (async () => {
      const path = (request.url ?? '/').replace(/^\/v1/, '');
      const body = request.method === 'POST' ? await bodyOf(request) : undefined;
      const headers = Object.fromEntries(
        Object.entries(request.headers).filter(
          ([name, value]) =>
            typeof value === 'string' &&
            (name === 'content-type' || name === 'authorization' || name.startsWith('x-chi-')),
        ),
      ) as Record<string, string>;
      const answer = await fetch(`${target}${path}`, {
        method: request.method ?? 'GET',
        headers,
        ...(body === undefined ? {} : { body }),
      });
      let text = await answer.text();
      if (path.startsWith('/chat/completions') && answer.ok) {
        forwarded += 1;
        const json = JSON.parse(text) as Record<string, unknown>;
        if (rewrite.provider !== undefined) json.provider = rewrite.provider;
        if (rewrite.model !== undefined) json.model = rewrite.model;
        if (rewrite.costUsd !== undefined)
          json.usage = { ...(json.usage as object), cost: rewrite.costUsd };
        text = JSON.stringify(json);
      }
      response.writeHead(answer.status, { 'content-type': 'application/json' });
      response.end(text);
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    set: (next) => {
      rewrite = { ...next };
    },
    completions: () => forwarded,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
