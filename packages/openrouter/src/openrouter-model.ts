import { setTimeout as delay } from 'node:timers/promises';
import {
  type BudgetLedger,
  type CatalogEndpoint,
  type CatalogModel,
  type ChatMessage,
  ChatMessageSchema,
  type ChatModel,
  type ChatRequest,
  type ChatResult,
  type EvidenceClass,
  EvidenceClassSchema,
  type FailureClass,
  InvalidArgumentError,
  type Price,
  parseWith,
  type TryRecord,
} from '@chi/spec';
import ky, { type KyInstance } from 'ky';
import { matchesProviderSlug, OPENROUTER_BASE_URL, providerSlugFor } from './catalog';
import { type CompletionReading, readCompletion, UNKNOWN_USAGE } from './completion-response';
import { redactResponseBody, scrubSecrets } from './redact';
import { effectivePrice, requestInputBytes, reservationUsd } from './reservation';
import { DEFAULT_BACKOFF_MS, isRetryableStatus, planRetry } from './retry-policy';

/** Reasoning efforts OpenRouter accepts. */
export type ReasoningEffort = 'none' | 'minimal' | 'low' | 'medium' | 'high' | 'xhigh' | 'max';

const REASONING_EFFORTS: readonly ReasoningEffort[] = [
  'none',
  'minimal',
  'low',
  'medium',
  'high',
  'xhigh',
  'max',
];

/**
 * HTTP statuses of a request no model received: 404 (OpenRouter's "no endpoints found" for the
 * allowlist and parameters, or an unknown model). Never retried; recorded as `no_route`, a
 * configuration failure that makes the block incomplete.
 */
const ROUTING_FAILURE_STATUSES: readonly number[] = [404];

/**
 * HTTP statuses answered before any inference starts (bad parameters, key, credits,
 * moderation, no matching endpoint, too large, unprocessable, rate limited): settled at 0 USD.
 * Every other non-2xx status keeps its reservation unless the generation lookup finds the cost.
 */
export const NOT_BILLED_STATUSES: readonly number[] = [400, 401, 402, 403, 404, 413, 422, 429];

/** Connection errors that prove the request never left: settled at 0 USD. Others keep the reservation. */
export const NOT_SENT_ERROR_CODES: readonly string[] = [
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
];

/** Settings of {@link createOpenRouterModel}. */
export interface OpenRouterModelSettings {
  /** Model ID sent as `model` (never a fallback list), e.g. `moonshotai/kimi-k3`. */
  readonly model: string;
  /**
   * `openrouter` (default) sends OpenRouter's routing fields and headers; `openai-compatible`
   * (vLLM, llama.cpp server, Ollama) sends only `model`, `messages`, `max_tokens` and, when set
   * explicitly, `reasoning`.
   */
  readonly mode?: 'openrouter' | 'openai-compatible';
  /** API base URL; OpenRouter's by default. For a local server e.g. `http://127.0.0.1:8000/v1`. */
  readonly baseURL?: string;
  /** Bearer key, from the environment ({@link apiKeyFromEnv}). Required in `openrouter` mode. */
  readonly apiKey?: string;
  /**
   * Provider allowlist sent as `provider.only` with fallbacks off. Required in `openrouter` mode
   * unless `catalog` gives it; must equal the catalog's when both are given.
   */
  readonly providers?: readonly string[];
  /** Budget ledger asked before every try. Required in `openrouter` mode. */
  readonly ledger?: BudgetLedger;
  /** The model's entry from `fetchCatalog` (price bound, endpoints for provider slugs). */
  readonly catalog?: CatalogModel;
  /** Declared safety price; the reservation uses the larger of this and the catalog price. */
  readonly safetyPrice?: Price;
  /** Margin added to each reservation; 0.25 by default. */
  readonly reservationMargin?: number;
  /** Output cap in tokens (reasoning included); 4096 by default. */
  readonly maxOutputTokens?: number;
  /** Reasoning effort; `low` by default in `openrouter` mode, omitted by default otherwise. */
  readonly reasoningEffort?: ReasoningEffort | null;
  /**
   * Deadline of each request on the `now` clock, from the start of `generate` to the last body byte
   * of its last try, retries and waits included; 180 000 ms by default. A retry gets what is left.
   */
  readonly deadlineMs?: number;
  /** Retries after the first try, for HTTP 429/5xx and pre-response connection failures; 2 by default. */
  readonly maxRetries?: number;
  /** Longest Retry-After honored; a longer one ends the request. 30 000 ms by default. */
  readonly retryAfterCapMs?: number;
  /** Waits before retry 1, 2… without Retry-After; [1000, 4000] ms by default. */
  readonly backoffMs?: readonly number[];
  /** Sent as `HTTP-Referer` (OpenRouter mode only). */
  readonly appUrl?: string;
  /** Sent as `X-OpenRouter-Title` (OpenRouter mode only). */
  readonly appTitle?: string;
  /**
   * When a response has no `usage.cost`, ask `GET /generation?id=` for the charge, retrying its
   * 404 `attempts` times `intervalMs` apart. On by default in `openrouter` mode (4 x 500 ms);
   * `false` turns it off, and the reservation is then kept whole.
   */
  readonly generationLookup?: { readonly attempts: number; readonly intervalMs: number } | false;
  /** Label of the results; `live_model` by default. */
  readonly evidenceClass?: EvidenceClass;
  /** Injectable fetch (tests, byte counting). */
  readonly fetch?: typeof globalThis.fetch;
  /** Injectable wait used between tries and lookups; must reject when `signal` aborts. */
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Clock for timestamps and the request deadline; `() => new Date()` by default. */
  readonly now?: () => Date;
}

/** The OpenRouter transport: a `ChatModel` plus what a runner needs to plan its budget. */
export interface OpenRouterChatModel extends ChatModel {
  /** The USD reserved before each try of this request (0 without a ledger). */
  reservationUsdFor(request: Pick<ChatRequest, 'messages' | 'maxOutputTokens'>): number;
}

type Exchange =
  | {
      readonly kind: 'response';
      readonly status: number;
      readonly headers: Headers;
      readonly body: string;
    }
  | {
      readonly kind: 'timeout' | 'aborted' | 'connection';
      readonly afterHeaders: boolean;
      readonly status: number | null;
      readonly headers: Headers | null;
      readonly code: string | null;
      readonly message: string;
    };

/**
 * A response that reached the wrong provider or names another model is a configuration failure,
 * whatever its text: the request did not measure the model under the registered settings. The
 * provider check comes first (it is the one the allowlist exists for).
 */
function configurationFailure(args: {
  readonly answered: boolean;
  readonly providerOutsideAllowlist: boolean;
  readonly returnedProvider: string | null;
  readonly providers: readonly string[];
  readonly requestedModel: string;
  readonly returnedModel: string | null;
}): { readonly failure: FailureClass; readonly detail: string | null } | null {
  if (!args.answered) return null;
  if (args.providerOutsideAllowlist)
    return {
      failure: 'provider_not_allowed',
      detail: `provider ${args.returnedProvider} is outside the allowlist [${args.providers.join(', ')}]`,
    };
  if (args.returnedModel !== null && args.returnedModel !== args.requestedModel)
    // The completion reading already notes the returned and requested model in the detail.
    return { failure: 'model_mismatch', detail: null };
  return null;
}

type Billing =
  | { readonly kind: 'settle'; readonly chargedUsd: number; readonly source: string }
  | { readonly kind: 'uncertain'; readonly reason: string; readonly generationId: string | null };

interface TryOutcome {
  readonly status: number | null;
  readonly failure: FailureClass;
  readonly detail: string | null;
  readonly retryable: boolean;
  readonly retryAfter: string | null;
  readonly reading: CompletionReading | null;
  readonly redactedResponse: unknown;
  readonly generationId: string | null;
  readonly billing: Billing;
}

function errorCode(error: unknown): string | null {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return null;
}

function errorMessage(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 3 && current instanceof Error; depth++) {
    parts.push(current.message);
    current = current.cause;
  }
  return parts.length === 0 ? String(error) : parts.join(': ');
}

function requirePositiveInteger(
  field: string,
  value: number | undefined,
  fallback: number,
  min = 1,
): number {
  const resolved = value ?? fallback;
  if (!Number.isInteger(resolved) || resolved < min) {
    throw new InvalidArgumentError(field, `expected an integer >= ${min}, found ${resolved}`);
  }
  return resolved;
}

function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return delay(ms, undefined, signal === undefined ? {} : { signal });
}

function errorBodyDetail(
  status: number,
  body: string,
  secrets: readonly string[],
): { detail: string; parsed: unknown } {
  let parsed: unknown = null;
  // Scrub first, then cut: a cut through an echoed key would leave a fragment the scrubber misses.
  const clean = scrubSecrets(body, secrets);
  let message = clean.trim().slice(0, 200);
  try {
    parsed = JSON.parse(clean);
    const error = (
      parsed as { error?: { message?: unknown; metadata?: { error_type?: unknown } } } | null
    )?.error;
    if (typeof error?.message === 'string') message = error.message.slice(0, 300);
    if (typeof error?.metadata?.error_type === 'string')
      message = `${message} (${error.metadata.error_type})`;
  } catch {
    parsed = null;
  }
  return {
    detail: scrubSecrets(`HTTP ${status}${message === '' ? '' : `: ${message}`}`, secrets),
    parsed,
  };
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
  const mode = settings.mode ?? 'openrouter';
  if (mode !== 'openrouter' && mode !== 'openai-compatible') {
    throw new InvalidArgumentError(
      'mode',
      `expected openrouter or openai-compatible, found ${JSON.stringify(mode)}`,
    );
  }
  const isOpenRouter = mode === 'openrouter';
  if (typeof settings.model !== 'string' || settings.model.trim() === '') {
    throw new InvalidArgumentError(
      'model',
      `expected a model ID, found ${JSON.stringify(settings.model)}`,
    );
  }
  const model = settings.model;
  const catalog = settings.catalog;
  if (catalog !== undefined && catalog.model !== model) {
    throw new InvalidArgumentError(
      'catalog',
      `the catalog entry is for ${catalog.model}, not ${model}`,
    );
  }
  const providers = settings.providers ?? catalog?.providers ?? [];
  if (
    catalog !== undefined &&
    JSON.stringify([...providers].sort()) !== JSON.stringify([...catalog.providers].sort())
  ) {
    throw new InvalidArgumentError(
      'providers',
      `the catalog checked [${catalog.providers.join(', ')}], found [${providers.join(', ')}]`,
    );
  }
  if (isOpenRouter && providers.length === 0) {
    throw new InvalidArgumentError(
      'providers',
      'expected a provider allowlist (e.g. ["moonshotai/mxfp4"]) in openrouter mode, found none',
    );
  }
  const apiKey = settings.apiKey;
  if (isOpenRouter && (apiKey === undefined || apiKey.trim() === '')) {
    throw new InvalidArgumentError(
      'apiKey',
      'expected an API key in openrouter mode (read it with apiKeyFromEnv()), found none',
    );
  }
  const ledger = settings.ledger;
  if (isOpenRouter && ledger === undefined) {
    throw new InvalidArgumentError(
      'ledger',
      'expected a budget ledger in openrouter mode (createFileLedger or createMemoryLedger), found none',
    );
  }
  const maxOutputTokens = requirePositiveInteger('maxOutputTokens', settings.maxOutputTokens, 4096);
  if (catalog !== undefined && maxOutputTokens > catalog.maxOutputTokens) {
    throw new InvalidArgumentError(
      'maxOutputTokens',
      `the catalog checked endpoints for a cap of ${catalog.maxOutputTokens}, found ${maxOutputTokens}`,
    );
  }
  const price =
    ledger === undefined && catalog === undefined && settings.safetyPrice === undefined
      ? null
      : effectivePrice(catalog?.price, settings.safetyPrice);
  const marginRatio = settings.reservationMargin ?? 0.25;
  if (!Number.isFinite(marginRatio) || marginRatio < 0) {
    throw new InvalidArgumentError(
      'reservationMargin',
      `expected a finite number >= 0, found ${marginRatio}`,
    );
  }
  const reasoningEffort =
    settings.reasoningEffort === undefined
      ? isOpenRouter
        ? 'low'
        : null
      : settings.reasoningEffort;
  if (reasoningEffort !== null && !REASONING_EFFORTS.includes(reasoningEffort)) {
    throw new InvalidArgumentError(
      'reasoningEffort',
      `expected one of ${REASONING_EFFORTS.join(', ')} or null, found ${JSON.stringify(reasoningEffort)}`,
    );
  }
  const deadlineMs = requirePositiveInteger('deadlineMs', settings.deadlineMs, 180_000);
  const maxRetries = requirePositiveInteger('maxRetries', settings.maxRetries, 2, 0);
  const retryAfterCapMs = requirePositiveInteger(
    'retryAfterCapMs',
    settings.retryAfterCapMs,
    30_000,
    0,
  );
  const backoffMs = settings.backoffMs ?? DEFAULT_BACKOFF_MS;
  if (backoffMs.some((ms) => !Number.isInteger(ms) || ms < 0)) {
    throw new InvalidArgumentError(
      'backoffMs',
      `expected integer waits >= 0, found [${backoffMs.join(', ')}]`,
    );
  }
  const lookup =
    settings.generationLookup ?? (isOpenRouter ? { attempts: 4, intervalMs: 500 } : false);
  if (lookup !== false) {
    requirePositiveInteger('generationLookup.attempts', lookup.attempts, 4);
    requirePositiveInteger('generationLookup.intervalMs', lookup.intervalMs, 500, 0);
  }
  const evidenceClass = parseWith(
    EvidenceClassSchema,
    settings.evidenceClass ?? 'live_model',
    'evidenceClass',
  );
  const baseURL = (settings.baseURL ?? OPENROUTER_BASE_URL).replace(/\/+$/, '');
  try {
    new URL(baseURL);
  } catch {
    throw new InvalidArgumentError(
      'baseURL',
      `expected an absolute URL, found ${JSON.stringify(settings.baseURL)}`,
    );
  }
  const sleep = settings.sleep ?? defaultSleep;
  const now = settings.now ?? (() => new Date());
  const secrets = apiKey === undefined ? [] : [apiKey];
  const endpoints: readonly CatalogEndpoint[] = catalog?.endpoints ?? [];

  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (apiKey !== undefined && apiKey !== '') headers.authorization = `Bearer ${apiKey}`;
  if (isOpenRouter && settings.appUrl !== undefined) headers['http-referer'] = settings.appUrl;
  if (isOpenRouter && settings.appTitle !== undefined)
    headers['x-openrouter-title'] = settings.appTitle;
  for (const [name, value] of Object.entries(headers)) {
    try {
      new Headers({ [name]: value });
    } catch {
      // Reported by field name only: the value may be the key.
      const field =
        name === 'authorization' ? 'apiKey' : name === 'http-referer' ? 'appUrl' : 'appTitle';
      throw new InvalidArgumentError(
        field,
        'expected a value usable in an HTTP header (no line breaks, Latin-1 only)',
      );
    }
  }
  const http: KyInstance = ky.create({
    prefixUrl: baseURL,
    retry: 0,
    timeout: false,
    throwHttpErrors: false,
    headers,
    ...(settings.fetch === undefined ? {} : { fetch: settings.fetch }),
  });

  function requestBody(messages: readonly ChatMessage[], cap: number): string {
    const body: Record<string, unknown> = { model, messages, max_tokens: cap };
    if (reasoningEffort !== null) body.reasoning = { effort: reasoningEffort };
    if (isOpenRouter) {
      body.provider = { only: [...providers], allow_fallbacks: false, require_parameters: true };
      body.plugins = [{ id: 'context-compression', enabled: false }];
    }
    return JSON.stringify(body);
  }

  function reservationFor(messages: readonly ChatMessage[], cap: number): number {
    if (ledger === undefined || price === null) return 0;
    return reservationUsd({
      inputBytes: requestInputBytes(messages),
      maxOutputTokens: cap,
      safetyPrice: price,
      marginRatio,
    });
  }

  async function exchange(
    body: string,
    callerSignal: AbortSignal | undefined,
    timeLeftMs: number,
  ): Promise<Exchange> {
    // One deadline per request: a try gets what is left of it (all of it on the first try).
    const deadline = tryDeadline(Math.max(1, Math.min(deadlineMs, timeLeftMs)), callerSignal);
    let response: Response | null = null;
    try {
      response = await http.post('chat/completions', { body, signal: deadline.signal });
      const text = await untilAborted(response.text(), deadline.signal);
      return {
        kind: 'response',
        status: response.status,
        headers: response.headers,
        // Scrubbed before anything reads or cuts it (an echoed key never reaches a record).
        body: scrubSecrets(text, secrets),
      };
    } catch (error) {
      const kind = deadline.timedOut()
        ? 'timeout'
        : callerSignal?.aborted === true
          ? 'aborted'
          : 'connection';
      return {
        kind,
        afterHeaders: response !== null,
        status: response?.status ?? null,
        headers: response?.headers ?? null,
        code: errorCode(error),
        message: scrubSecrets(errorMessage(error), secrets),
      };
    } finally {
      deadline.dispose();
    }
  }

  function interpret(result: Exchange, cap: number): TryOutcome {
    if (result.kind !== 'response') {
      const generationId = result.headers?.get('x-generation-id') ?? null;
      const base = {
        status: result.status,
        retryAfter: null,
        reading: null,
        redactedResponse: null,
        generationId,
      };
      if (result.kind === 'timeout') {
        const detail = `timeout: no complete response within the ${deadlineMs} ms deadline (${result.afterHeaders ? 'while reading the body' : 'before the response headers'})`;
        return {
          ...base,
          failure: 'timeout',
          detail,
          retryable: false,
          billing: { kind: 'uncertain', reason: detail, generationId: null },
        };
      }
      if (result.kind === 'aborted') {
        const detail = `aborted by the caller ${result.afterHeaders ? 'while reading the body' : 'before the response headers'}`;
        return {
          ...base,
          failure: 'timeout',
          detail,
          retryable: false,
          billing: { kind: 'uncertain', reason: detail, generationId: null },
        };
      }
      if (result.afterHeaders) {
        const detail = `connection lost after the response headers (${result.code ?? result.message}); not retried, the completion may have been billed`;
        return {
          ...base,
          failure: 'connection_retryable',
          detail,
          retryable: false,
          billing: { kind: 'uncertain', reason: detail, generationId: null },
        };
      }
      const detail = `connection failed before any response: ${result.code ?? 'error'} (${result.message})`;
      const notSent = result.code !== null && NOT_SENT_ERROR_CODES.includes(result.code);
      return {
        ...base,
        failure: 'connection_retryable',
        detail,
        retryable: true,
        billing: notSent
          ? { kind: 'settle', chargedUsd: 0, source: `not_sent:${result.code}` }
          : { kind: 'uncertain', reason: detail, generationId: null },
      };
    }
    const generationIdHeader = result.headers.get('x-generation-id');
    if (result.status >= 200 && result.status <= 299) {
      const reading = readCompletion(result.body, {
        requestedModel: model,
        maxOutputTokens: cap,
        generationIdHeader,
      });
      const cost = reading.usage.costUsd;
      return {
        status: result.status,
        failure: reading.failure,
        detail: reading.detail === null ? null : scrubSecrets(reading.detail, secrets),
        retryable: false,
        retryAfter: null,
        reading,
        redactedResponse:
          reading.body === undefined ? null : redactResponseBody(reading.body, secrets),
        generationId: reading.generationId,
        billing:
          cost !== null
            ? { kind: 'settle', chargedUsd: cost, source: 'usage.cost' }
            : {
                kind: 'uncertain',
                reason: 'the response carries no usage.cost',
                generationId: reading.generationId,
              },
      };
    }
    const { detail, parsed } = errorBodyDetail(result.status, result.body, secrets);
    const retryable = isRetryableStatus(result.status);
    const bodyId = (parsed as { id?: unknown } | null)?.id;
    const generationId = generationIdHeader ?? (typeof bodyId === 'string' ? bodyId : null);
    return {
      status: result.status,
      failure: retryable
        ? 'http_retryable'
        : ROUTING_FAILURE_STATUSES.includes(result.status)
          ? 'no_route'
          : 'http_fatal',
      detail,
      retryable,
      retryAfter: result.headers.get('retry-after'),
      reading: null,
      redactedResponse: parsed === null ? null : redactResponseBody(parsed, secrets),
      generationId,
      billing: NOT_BILLED_STATUSES.includes(result.status)
        ? { kind: 'settle', chargedUsd: 0, source: `not_billed:http_${result.status}` }
        : {
            kind: 'uncertain',
            reason: `${detail}: whether it was billed is unknown`,
            generationId,
          },
    };
  }

  async function lookupCost(
    generationId: string,
    signal: AbortSignal | undefined,
  ): Promise<number | null> {
    if (lookup === false) return null;
    for (let attempt = 0; attempt < lookup.attempts; attempt++) {
      if (attempt > 0) {
        try {
          await sleep(lookup.intervalMs, signal);
        } catch {
          return null;
        }
      }
      const deadline = AbortSignal.timeout(10_000);
      try {
        const response = await http.get('generation', {
          searchParams: { id: generationId },
          signal: signal === undefined ? deadline : AbortSignal.any([deadline, signal]),
        });
        const text = await response.text();
        // The generation can answer 404 for about a second after the request finishes.
        if (response.status === 404) continue;
        if (!response.ok) return null;
        const cost = (JSON.parse(text) as { data?: { total_cost?: unknown } } | null)?.data
          ?.total_cost;
        return typeof cost === 'number' && Number.isFinite(cost) && cost >= 0 ? cost : null;
      } catch {
        return null;
      }
    }
    return null;
  }

  /** Settles or retains one try's reservation; returns the USD recorded and a note for an overcharge. */
  async function account(
    outcome: TryOutcome,
    reservationId: string | null,
    reservedUsd: number,
    signal: AbortSignal | undefined,
  ): Promise<{ chargedUsd: number; note: string | null }> {
    let billing = outcome.billing;
    if (
      billing.kind === 'uncertain' &&
      billing.generationId !== null &&
      outcome.failure !== 'timeout'
    ) {
      const cost = await lookupCost(billing.generationId, signal);
      if (cost !== null)
        billing = { kind: 'settle', chargedUsd: cost, source: 'generation.total_cost' };
    }
    if (ledger === undefined || reservationId === null) {
      return { chargedUsd: billing.kind === 'settle' ? billing.chargedUsd : 0, note: null };
    }
    if (billing.kind === 'uncertain') {
      await ledger.retain(reservationId, billing.reason);
      return { chargedUsd: reservedUsd, note: null };
    }
    const settled = await ledger.settle(reservationId, {
      chargedUsd: billing.chargedUsd,
      source: billing.source,
    });
    const note = settled.overcharged
      ? `charged ${billing.chargedUsd} USD (${billing.source}), above the reservation of ${reservedUsd} USD: the ledger stopped new requests`
      : null;
    return { chargedUsd: billing.chargedUsd, note };
  }

  function validate(request: ChatRequest): { messages: ChatMessage[]; cap: number } {
    if (typeof request?.requestId !== 'string' || request.requestId === '') {
      throw new InvalidArgumentError(
        'requestId',
        `expected a non-empty string, found ${JSON.stringify(request?.requestId)}`,
      );
    }
    if (!Array.isArray(request.messages) || request.messages.length === 0) {
      throw new InvalidArgumentError('messages', 'expected at least one chat message, found none');
    }
    const messages = request.messages.map((message, index) =>
      parseWith(ChatMessageSchema, message, `messages[${index}]`),
    );
    const cap = requirePositiveInteger('maxOutputTokens', request.maxOutputTokens, maxOutputTokens);
    if (catalog !== undefined && cap > catalog.maxOutputTokens) {
      throw new InvalidArgumentError(
        'maxOutputTokens',
        `the catalog checked endpoints for a cap of ${catalog.maxOutputTokens}, found ${cap}`,
      );
    }
    return { messages, cap };
  }

  return {
    specificationVersion: 'chi-chat-v1',
    provider: mode,
    modelId: model,
    evidenceClass,

    reservationUsdFor(request) {
      const messages = request.messages.map((message, index) =>
        parseWith(ChatMessageSchema, message, `messages[${index}]`),
      );
      return reservationFor(
        messages,
        requirePositiveInteger('maxOutputTokens', request.maxOutputTokens, maxOutputTokens),
      );
    },

    async generate(request): Promise<ChatResult> {
      const { messages, cap } = validate(request);
      const startedAt = now().toISOString();
      const startedMs = performance.now();
      // The protocol's "180 seconds per request": one deadline over every try and wait.
      const deadlineAtMs = now().getTime() + deadlineMs;
      const timeLeftMs = () => deadlineAtMs - now().getTime();
      const signal = request.signal;
      const body = requestBody(messages, cap);
      const amountUsd = reservationFor(messages, cap);
      const tries: TryRecord[] = [];
      const notes: string[] = [];
      let reservedUsd = 0;
      let chargedUsd = 0;
      let last: TryOutcome | null = null;
      let endFailure: { failure: FailureClass; detail: string } | null = null;

      for (let tryIndex = 0; ; tryIndex++) {
        if (signal?.aborted === true) {
          endFailure = {
            failure: 'timeout',
            detail: `aborted by the caller before try ${tryIndex} was sent`,
          };
          break;
        }
        const tryStartedAt = now().toISOString();
        let reservationId: string | null = null;
        if (ledger !== undefined) {
          const reservation = await ledger.reserve({
            attemptId: `${request.requestId}#${tryIndex}`,
            amountUsd,
          });
          if (!reservation.ok) {
            const detail = scrubSecrets(`budget refused: ${reservation.reason}`, secrets);
            tries.push({
              tryIndex,
              startedAt: tryStartedAt,
              status: null,
              failure: 'budget_refused',
              detail,
              waitMs: null,
              waitSource: null,
            });
            endFailure = { failure: 'budget_refused', detail };
            break;
          }
          reservationId = reservation.reservationId;
          reservedUsd += reservation.amountUsd;
        }
        const exchanged = await exchange(body, signal, timeLeftMs());
        const outcome = interpret(exchanged, cap);
        const previous = last;
        last = outcome;
        // A retry's window is what is left of the request's deadline, always less than a full one.
        if (exchanged.kind === 'timeout' && previous !== null) {
          // A retry cut short by the request's deadline: the model never had a try free of the
          // infrastructure failure that forced the retry, so that failure ends the request.
          endFailure = {
            failure: previous.failure,
            detail: `${previous.detail ?? previous.failure}; the ${deadlineMs} ms request deadline passed during retry ${tryIndex}`,
          };
        }
        const accounted = await account(outcome, reservationId, amountUsd, signal);
        chargedUsd += accounted.chargedUsd;
        if (accounted.note !== null) notes.push(accounted.note);
        const tryDetail = scrubSecrets(
          [outcome.detail, ...(outcome.reading?.notes ?? []), accounted.note]
            .filter((part) => part !== null)
            .join('; '),
          secrets,
        );
        const record: TryRecord = {
          tryIndex,
          startedAt: tryStartedAt,
          status: outcome.status,
          failure: outcome.failure,
          detail: tryDetail === '' ? null : tryDetail,
          waitMs: null,
          waitSource: null,
        };
        tries.push(record);
        if (!outcome.retryable) break;
        const plan = planRetry({
          tryIndex,
          maxRetries,
          retryAfter: outcome.retryAfter,
          retryAfterCapMs,
          backoffMs,
          nowMs: now().getTime(),
        });
        if (!plan.retry) {
          notes.push(plan.reason);
          break;
        }
        if (plan.waitMs >= timeLeftMs()) {
          // Retrying would start after the request's deadline: the request ends as the
          // infrastructure failure that asked for the retry (the model never had a clean try).
          notes.push(
            `no retry: the ${deadlineMs} ms request deadline leaves ${Math.max(0, timeLeftMs())} ms, less than the ${plan.waitMs} ms wait`,
          );
          break;
        }
        tries[tries.length - 1] = { ...record, waitMs: plan.waitMs, waitSource: plan.source };
        try {
          await sleep(plan.waitMs, signal);
        } catch {
          // The wait was logged on the try before it; the next try is never made.
          tries[tries.length - 1] = {
            ...record,
            waitMs: null,
            waitSource: null,
            detail: `${record.detail ?? ''}; aborted by the caller during the ${plan.waitMs} ms wait`,
          };
          endFailure = {
            failure: 'timeout',
            detail: 'aborted by the caller during the wait before a retry',
          };
          break;
        }
      }

      const reading = last?.reading ?? null;
      const providerName = reading?.providerName ?? null;
      const returnedProvider =
        providerName === null ? null : providerSlugFor(providerName, endpoints);
      const configuration = configurationFailure({
        answered: reading !== null && endFailure === null,
        providerOutsideAllowlist:
          isOpenRouter &&
          returnedProvider !== null &&
          endpoints.length > 0 &&
          !providers.some((slug) => matchesProviderSlug(slug, returnedProvider)),
        returnedProvider,
        providers,
        requestedModel: model,
        returnedModel: reading?.returnedModel ?? null,
      });
      const failure = configuration?.failure ?? endFailure?.failure ?? last?.failure ?? 'timeout';
      const headline = endFailure?.detail ?? last?.detail ?? null;
      const detailParts = [
        configuration?.detail ?? null,
        headline,
        ...(reading?.notes ?? []),
        ...notes,
      ].filter((part) => part !== null);
      const failureDetail =
        detailParts.length === 0 ? null : scrubSecrets(detailParts.join('; '), secrets);
      // Every string a server sent passes the secret scrubber: a key echoed back never leaks.
      const scrub = (value: string | null): string | null =>
        value === null ? null : scrubSecrets(value, secrets);
      return {
        requestId: request.requestId,
        evidenceClass,
        text:
          failure === 'budget_refused' || failure === 'timeout'
            ? null
            : scrub(reading?.text ?? null),
        failure,
        failureDetail,
        finishReason: scrub(reading?.finishReason ?? null),
        truncated: reading?.truncated ?? false,
        requestedModel: model,
        returnedModel: scrub(reading?.returnedModel ?? null),
        returnedProvider: scrub(returnedProvider),
        generationId: scrub(last?.generationId ?? null),
        usage: reading?.usage ?? UNKNOWN_USAGE,
        startedAt,
        finishedAt: now().toISOString(),
        latencyMs: performance.now() - startedMs,
        tries,
        reservedUsd,
        chargedUsd,
        redactedResponse: last?.redactedResponse ?? null,
      };
    },
  };
}

/** The deadline of one try (see {@link tryDeadline}). */
interface TryDeadline {
  /** Aborted when the deadline passes or the caller aborts. */
  readonly signal: AbortSignal;
  /** Whether the deadline (not the caller) aborted the try. */
  timedOut(): boolean;
  /** Clears the timer and the caller listener. */
  dispose(): void;
}

/**
 * A try's deadline as a plain timer and controller that this function's caller holds until the
 * try ends. Not `AbortSignal.timeout`/`AbortSignal.any`: on Node 20 a signal combined from them
 * (ky combines ours with its own before fetch sees it) can be garbage-collected before it fires,
 * and a body that stalls after the headers then never ends. The timer keeps the controller alive.
 */
function tryDeadline(ms: number, callerSignal: AbortSignal | undefined): TryDeadline {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new DOMException(`the ${ms} ms deadline passed`, 'TimeoutError'));
  }, ms);
  const onCallerAbort = () => controller.abort(callerSignal?.reason);
  if (callerSignal?.aborted === true) onCallerAbort();
  else callerSignal?.addEventListener('abort', onCallerAbort, { once: true });
  return {
    signal: controller.signal,
    timedOut: () => timedOut,
    dispose() {
      clearTimeout(timer);
      callerSignal?.removeEventListener('abort', onCallerAbort);
    },
  };
}

/**
 * `work`, or a rejection with the signal's reason as soon as `signal` aborts, whichever comes
 * first: reading a body ends at the deadline even when the fetch underneath missed the abort.
 */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    work.catch(() => {});
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      work.catch(() => {});
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
