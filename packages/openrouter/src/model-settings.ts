import { setTimeout as delay } from 'node:timers/promises';
import {
  type BudgetLedger,
  type CatalogModel,
  type EvidenceClass,
  InvalidArgumentError,
  type Price,
  parseWith,
} from '@chi/spec';
import { type CatalogEndpoint, EvidenceClassSchema } from '@chi/spec/internal';
import { OPENROUTER_BASE_URL } from './catalog';
import { effectivePrice } from './reservation';
import { DEFAULT_BACKOFF_MS } from './retry-policy';
import {
  type GenerationLookup,
  type ReasoningEffort,
  type TransportMode,
  transportModeFor,
} from './transport-mode';

const REASONING_EFFORTS: readonly ReasoningEffort[] = [
  'none',
  'minimal',
  'low',
  'medium',
  'high',
  'xhigh',
  'max',
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
  /**
   * Monotonic milliseconds for `latencyMs`; `performance.now` by default. Tests that compare
   * published bytes across runs fix it together with `now`.
   */
  readonly elapsedMs?: () => number;
}

/**
 * The settings of {@link createOpenRouterModel} checked and with their defaults filled in: the one
 * object every step of a request reads (nothing is captured in closures).
 */
export interface ResolvedModelSettings {
  /** The mode's strategy. */
  readonly mode: TransportMode;
  /** Model ID sent as `model`. */
  readonly model: string;
  /** The catalog entry, when given. */
  readonly catalog: CatalogModel | undefined;
  /** Provider allowlist (empty in `openai-compatible` mode without one). */
  readonly providers: readonly string[];
  /** The catalog's endpoints (provider slugs of returned provider names). */
  readonly endpoints: readonly CatalogEndpoint[];
  /** Bearer key, when given. */
  readonly apiKey: string | undefined;
  /** Budget ledger, when given. */
  readonly ledger: BudgetLedger | undefined;
  /** Default output cap. */
  readonly maxOutputTokens: number;
  /** Price bound of a reservation; null when nothing is reserved or priced. */
  readonly price: Price | null;
  /** Reservation margin. */
  readonly marginRatio: number;
  /** Reasoning effort sent, or null for none. */
  readonly reasoningEffort: ReasoningEffort | null;
  /** Request deadline. */
  readonly deadlineMs: number;
  /** Retries after the first try. */
  readonly maxRetries: number;
  /** Longest Retry-After honored. */
  readonly retryAfterCapMs: number;
  /** Waits before retries without Retry-After. */
  readonly backoffMs: readonly number[];
  /** Generation lookup, or false. */
  readonly lookup: GenerationLookup | false;
  /** Label of the results. */
  readonly evidenceClass: EvidenceClass;
  /** API base URL without trailing slashes. */
  readonly baseURL: string;
  /** Wait between tries and lookups. */
  readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Clock of timestamps and the deadline. */
  readonly now: () => Date;
  /** Monotonic clock of `latencyMs`. */
  readonly elapsedMs: () => number;
  /** Strings scrubbed from everything a server sent (the key). */
  readonly secrets: readonly string[];
}

/** `value` (or `fallback`) when it is an integer >= `min`; throws naming `field` otherwise. */
export function requirePositiveInteger(
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

/** The model, its catalog entry and the provider allowlist, checked against each other. */
function resolveIdentity(settings: OpenRouterModelSettings, mode: TransportMode) {
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
  mode.requireSettings({
    providers,
    apiKey: settings.apiKey,
    ledgerGiven: settings.ledger !== undefined,
  });
  return { model, catalog, providers };
}

/** The output cap, the reservation price and its margin. */
function resolveBudget(settings: OpenRouterModelSettings, catalog: CatalogModel | undefined) {
  const maxOutputTokens = requirePositiveInteger('maxOutputTokens', settings.maxOutputTokens, 4096);
  if (catalog !== undefined && maxOutputTokens > catalog.maxOutputTokens) {
    throw new InvalidArgumentError(
      'maxOutputTokens',
      `the catalog checked endpoints for a cap of ${catalog.maxOutputTokens}, found ${maxOutputTokens}`,
    );
  }
  const price =
    settings.ledger === undefined && catalog === undefined && settings.safetyPrice === undefined
      ? null
      : effectivePrice(catalog?.price, settings.safetyPrice);
  const marginRatio = settings.reservationMargin ?? 0.25;
  if (!Number.isFinite(marginRatio) || marginRatio < 0) {
    throw new InvalidArgumentError(
      'reservationMargin',
      `expected a finite number >= 0, found ${marginRatio}`,
    );
  }
  return { maxOutputTokens, price, marginRatio };
}

function resolveReasoningEffort(
  settings: OpenRouterModelSettings,
  mode: TransportMode,
): ReasoningEffort | null {
  const reasoningEffort =
    settings.reasoningEffort === undefined ? mode.defaultReasoningEffort : settings.reasoningEffort;
  if (reasoningEffort !== null && !REASONING_EFFORTS.includes(reasoningEffort)) {
    throw new InvalidArgumentError(
      'reasoningEffort',
      `expected one of ${REASONING_EFFORTS.join(', ')} or null, found ${JSON.stringify(reasoningEffort)}`,
    );
  }
  return reasoningEffort;
}

/** The deadline, the retry limits and waits, and the generation lookup. */
function resolveTiming(settings: OpenRouterModelSettings, mode: TransportMode) {
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
  const lookup = settings.generationLookup ?? mode.defaultGenerationLookup;
  if (lookup !== false) {
    requirePositiveInteger('generationLookup.attempts', lookup.attempts, 4);
    requirePositiveInteger('generationLookup.intervalMs', lookup.intervalMs, 500, 0);
  }
  return { deadlineMs, maxRetries, retryAfterCapMs, backoffMs, lookup };
}

function resolveBaseUrl(baseURL: string | undefined): string {
  const resolved = (baseURL ?? OPENROUTER_BASE_URL).replace(/\/+$/, '');
  try {
    new URL(resolved);
  } catch {
    throw new InvalidArgumentError(
      'baseURL',
      `expected an absolute URL, found ${JSON.stringify(baseURL)}`,
    );
  }
  return resolved;
}

/**
 * Checks the settings of {@link createOpenRouterModel} in a fixed order (the first problem is the
 * one reported) and fills in the defaults of their mode.
 */
export function resolveModelSettings(settings: OpenRouterModelSettings): ResolvedModelSettings {
  const mode = transportModeFor(settings.mode);
  const { model, catalog, providers } = resolveIdentity(settings, mode);
  const budget = resolveBudget(settings, catalog);
  const reasoningEffort = resolveReasoningEffort(settings, mode);
  const timing = resolveTiming(settings, mode);
  const evidenceClass = parseWith(
    EvidenceClassSchema,
    settings.evidenceClass ?? 'live_model',
    'evidenceClass',
  );
  const baseURL = resolveBaseUrl(settings.baseURL);
  const apiKey = settings.apiKey;
  return {
    mode,
    model,
    catalog,
    providers,
    endpoints: catalog?.endpoints ?? [],
    apiKey,
    ledger: settings.ledger,
    ...budget,
    reasoningEffort,
    ...timing,
    evidenceClass,
    baseURL,
    sleep: settings.sleep ?? defaultSleep,
    now: settings.now ?? (() => new Date()),
    elapsedMs: settings.elapsedMs ?? (() => performance.now()),
    secrets: apiKey === undefined ? [] : [apiKey],
  };
}
