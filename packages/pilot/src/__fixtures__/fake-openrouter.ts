import type { ChatMessage } from '@chi/spec';
import { createScriptedModel } from '../scripted/scripted-systems';

/** Prices of the fake catalog, per token (USD). */
export const FAKE_PRICE = { prompt: 1e-6, completion: 4e-6 };

/**
 * An injectable `fetch` that plays OpenRouter for a test: the models and endpoints API (prices,
 * provider tags) and chat completions answered by a scripted system, with usage and cost. It
 * records every Authorization header it sees so a test can prove the key went only there.
 */
export function fakeOpenRouter(options: { answerWith: string; providerName?: string; tag?: string; models?: readonly string[]; costUsd?: number; answeredBy?: string }) {
  const scripted = createScriptedModel(options.answerWith);
  const providerName = options.providerName ?? 'Moonshot AI';
  const tag = options.tag ?? 'moonshotai/mxfp4';
  const models = options.models ?? ['moonshotai/kimi-k3'];
  const authorizations: string[] = [];
  let completions = 0;
  const pricing = { prompt: String(FAKE_PRICE.prompt), completion: String(FAKE_PRICE.completion), request: '0' };
  const json = (status: number, body: unknown) =>
    new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
  const fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    const authorization = request.headers.get('authorization');
    if (authorization !== null) authorizations.push(authorization);
    if (url.hostname !== 'openrouter.ai') return json(404, { error: { message: 'not routed' } });
    const path = url.pathname.replace(/^\/api\/v1\//, '');
    if (request.method === 'GET' && path === 'models') {
      return json(200, { data: models.map((id) => ({ id, pricing })) });
    }
    const endpoints = /^models\/([^/]+)\/([^/]+)\/endpoints$/.exec(path);
    if (request.method === 'GET' && endpoints !== null) {
      return json(200, {
        data: {
          endpoints: [
            { tag, provider_name: providerName, pricing, max_completion_tokens: 16384, context_length: 262144, quantization: 'fp4' },
            { tag: 'relace/fp8', provider_name: 'Relace', pricing, max_completion_tokens: 16384, context_length: 262144, quantization: 'fp8' },
          ],
        },
      });
    }
    if (request.method === 'POST' && path === 'chat/completions') {
      const body = (await request.json()) as { model: string; messages: ChatMessage[]; max_tokens: number };
      completions += 1;
      const result = await scripted.generate({ requestId: `fake-${completions}`, messages: body.messages });
      const promptTokens = Math.ceil(JSON.stringify(body.messages).length / 4);
      const completionTokens = Math.ceil((result.text ?? '').length / 4);
      return json(200, {
        id: `gen-${completions}`,
        model: body.model,
        provider: options.answeredBy ?? providerName,
        choices: [{ index: 0, message: { role: 'assistant', content: result.text ?? '' }, finish_reason: 'stop' }],
        usage: {
          prompt_tokens: promptTokens,
          completion_tokens: completionTokens,
          total_tokens: promptTokens + completionTokens,
          cost: options.costUsd ?? promptTokens * FAKE_PRICE.prompt + completionTokens * FAKE_PRICE.completion,
        },
      });
    }
    return json(404, { error: { message: `no route ${request.method} ${path}` } });
  };
  return { fetch: fetch as typeof globalThis.fetch, authorizations, completions: () => completions };
}
