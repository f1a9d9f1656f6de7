import {
  type ChatMessage,
  ChatMessageSchema,
  type ChatModel,
  type ChatRequest,
  type ChatResult,
  InvalidArgumentError,
  parseWith,
} from '@chi/spec';
import { chatResultOf } from './chat-result';
import { createHttpClient, transportHeaders } from './http-client';
import { instanceHeaders } from './instance-identity';
import {
  type OpenRouterModelSettings,
  requirePositiveInteger,
  resolveModelSettings,
} from './model-settings';
import { requestBody } from './request-body';
import type { RequestState, TransportContext } from './request-state';
import { runTries } from './request-tries';
import { reservationFor } from './try-accounting';

export type { OpenRouterModelSettings } from './model-settings';
export type { ReasoningEffort } from './transport-mode';
export { NOT_BILLED_STATUSES, NOT_SENT_ERROR_CODES } from './try-outcome';

/** The OpenRouter transport: a `ChatModel` plus what a runner needs to plan its budget. */
export interface OpenRouterChatModel extends ChatModel {
  /** The USD reserved before each try of this request (0 without a ledger). */
  reservationUsdFor(request: Pick<ChatRequest, 'messages' | 'maxOutputTokens'>): number;
}

function parseMessages(messages: readonly ChatMessage[]): ChatMessage[] {
  return messages.map((message, index) =>
    parseWith(ChatMessageSchema, message, `messages[${index}]`),
  );
}

/** The request's messages and output cap, checked (an invalid request is the caller's error). */
function validateRequest(
  context: TransportContext,
  request: ChatRequest,
): { messages: ChatMessage[]; cap: number } {
  if (typeof request?.requestId !== 'string' || request.requestId === '') {
    throw new InvalidArgumentError(
      'requestId',
      `expected a non-empty string, found ${JSON.stringify(request?.requestId)}`,
    );
  }
  if (!Array.isArray(request.messages) || request.messages.length === 0) {
    throw new InvalidArgumentError('messages', 'expected at least one chat message, found none');
  }
  const messages = parseMessages(request.messages);
  const cap = requirePositiveInteger(
    'maxOutputTokens',
    request.maxOutputTokens,
    context.maxOutputTokens,
  );
  const catalog = context.catalog;
  if (catalog !== undefined && cap > catalog.maxOutputTokens) {
    throw new InvalidArgumentError(
      'maxOutputTokens',
      `the catalog checked endpoints for a cap of ${catalog.maxOutputTokens}, found ${cap}`,
    );
  }
  return { messages, cap };
}

/** One `generate` call: validate, then tries until one ends the request, then the result. */
async function generate(context: TransportContext, request: ChatRequest): Promise<ChatResult> {
  const { messages, cap } = validateRequest(context, request);
  const startedAt = context.now().toISOString();
  const startedMs = context.elapsedMs();
  const state: RequestState = {
    requestId: request.requestId,
    messages,
    cap,
    // The protocol's "180 seconds per request": one deadline over every try and wait.
    deadlineAtMs: context.now().getTime() + context.deadlineMs,
    signal: request.signal,
    body: requestBody(context, messages, cap),
    headers: instanceHeaders(request.instance),
    amountUsd: reservationFor(context, messages, cap),
    tries: [],
    notes: [],
    reservedUsd: 0,
    chargedUsd: 0,
    last: null,
    endFailure: null,
  };
  await runTries(context, state);
  return chatResultOf(context, state, { startedAt, startedMs });
}

/**
 * Creates the budgeted transport: a `ChatModel` for one model on OpenRouter (or, with
 * `mode: 'openai-compatible'`, on vLLM, llama.cpp server, Ollama...). Each `generate` call:
 *
 * 1. reserves the upper bound with the ledger before every try (refused: `budget_refused`,
 *    nothing is sent);
 * 2. posts `model`, `messages`, `max_tokens`, `reasoning: { effort }`, `provider: { only,
 *    allow_fallbacks: false, require_parameters: true }` and the context-compression plugin
 *    switched off, with one deadline per request covering every try, wait, header and body;
 * 3. settles the actual charge (`usage.cost`, else the generation lookup), or keeps the whole
 *    reservation when the outcome is uncertain (timeout, cancellation, a 5xx, a lost body);
 * 4. retries only HTTP 429/5xx and pre-response connection failures, at most `maxRetries` times,
 *    honoring Retry-After up to the cap, logging every try and wait in `tries`.
 *
 * It resolves for every model, network and budget failure; it rejects only for an invalid request
 * or a ledger that cannot write. The API key never appears in a result or an error.
 * Concurrency is the caller's: bound it with {@link createConcurrencyLimiter}.
 *
 * @example
 * ```ts
 * const ledger = await createFileLedger({ path: 'runs/pilot/ledger.jsonl', ceilingUsd: 40 });
 * const catalog = await fetchCatalog({ models: [{ model: 'moonshotai/kimi-k3', providers: ['moonshotai/mxfp4'], maxOutputTokens: 4096 }] });
 * const kimi = createOpenRouterModel({
 *   model: 'moonshotai/kimi-k3',
 *   apiKey: apiKeyFromEnv(),
 *   ledger,
 *   catalog: catalogEntry(catalog, 'moonshotai/kimi-k3'),
 *   safetyPrice: { inputUsdPerToken: 1e-6, outputUsdPerToken: 5e-6, requestUsd: 0 },
 *   appTitle: 'CHI pilot',
 * });
 * const result = await kimi.generate({ requestId: 'w1-encode', messages: [{ role: 'user', content: 'Hello' }] });
 * if (result.failure !== 'none') console.error(result.failure, result.failureDetail);
 * ```
 */
export function createOpenRouterModel(settings: OpenRouterModelSettings): OpenRouterChatModel {
  const resolved = resolveModelSettings(settings);
  const headers = transportHeaders(resolved, settings);
  const context: TransportContext = {
    ...resolved,
    http: createHttpClient(resolved.baseURL, headers, settings.fetch),
  };
  return {
    specificationVersion: 'chi-chat-v1',
    provider: resolved.mode.id,
    modelId: resolved.model,
    evidenceClass: resolved.evidenceClass,
    reservationUsdFor(request) {
      return reservationFor(
        context,
        parseMessages(request.messages),
        requirePositiveInteger('maxOutputTokens', request.maxOutputTokens, context.maxOutputTokens),
      );
    },
    generate: (request) => generate(context, request),
  };
}
