import {
  ApiCallError,
  type CatalogModel,
  ChiError,
  InvalidArgumentError,
  type ModelCatalog,
  type Price,
  parseWith,
} from '@chi/spec';
import { type CatalogEndpoint, ModelCatalogSchema } from '@chi/spec/internal';
import ky from 'ky';
import { scrubSecrets } from './redact';

/** OpenRouter's API base URL. */
export const OPENROUTER_BASE_URL = 'https://openrouter.ai/api/v1';

/** One model to look up: its allowlist and the output cap every allowlisted endpoint must accept. */
export interface CatalogModelRequest {
  /** Model ID, e.g. `moonshotai/kimi-k3`. */
  readonly model: string;
  /** Provider allowlist: base slugs (`xai`) or full endpoint slugs (`moonshotai/mxfp4`). */
  readonly providers: readonly string[];
  /** Output cap in tokens (the protocol's is 4096). */
  readonly maxOutputTokens: number;
}

/** Options of {@link fetchCatalog}. */
export interface FetchCatalogOptions {
  /** The models to look up. */
  readonly models: readonly CatalogModelRequest[];
  /** API base URL; OpenRouter's by default. */
  readonly baseURL?: string;
  /** Optional: the models API is public. Sent as a bearer token when given, never logged. */
  readonly apiKey?: string;
  /** Injectable fetch (tests, byte counting). */
  readonly fetch?: typeof globalThis.fetch;
  /** Cancels the lookups. */
  readonly signal?: AbortSignal;
  /** Deadline of each HTTP call, headers and body; 30 000 ms by default. */
  readonly deadlineMs?: number;
  /** Clock for `fetchedAt`. */
  readonly now?: () => Date;
}

/** The catalog contradicts the plan: an unknown model or provider slug, a cap above an endpoint's limit, a variable price. */
export class CatalogError extends ChiError {
  /** Every problem found, one sentence each. */
  readonly problems: readonly string[];

  constructor(problems: readonly string[]) {
    super(
      `The model catalog does not support the planned requests:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`,
    );
    this.name = 'CatalogError';
    this.problems = problems;
  }

  /** True for this error from any copy of the package. */
  static override isInstance(error: unknown): error is CatalogError {
    return ChiError.isInstance(error) && error.name === 'CatalogError';
  }
}

type Fields = Record<string, unknown>;

function record(value: unknown): Fields | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Fields)
    : null;
}

function optionalCount(value: unknown): number | null {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : null;
}

/**
 * True when an allowlist slug selects an endpoint: a base slug (`moonshotai`) matches every
 * endpoint of that provider, a full slug (`moonshotai/mxfp4`) only the endpoint with that tag.
 */
export function matchesProviderSlug(slug: string, endpointTag: string): boolean {
  const wanted = slug.toLowerCase();
  const tag = endpointTag.toLowerCase();
  return wanted.includes('/') ? tag === wanted : (tag.split('/')[0] ?? '') === wanted;
}

/**
 * Maps a completion's provider display name (`Moonshot AI`) to an allowlist-style slug through
 * the catalog's endpoints: the endpoint's tag when exactly one allowed endpoint (or, failing that,
 * exactly one endpoint) has that name, else the shared base slug; the display name itself when
 * no endpoint has it.
 */
export function providerSlugFor(
  providerName: string,
  endpoints: readonly CatalogEndpoint[],
): string {
  const named = endpoints.filter((endpoint) => endpoint.providerName === providerName);
  const allowed = named.filter((endpoint) => endpoint.allowed);
  const candidates = allowed.length > 0 ? allowed : named;
  if (candidates.length === 1) return candidates[0]!.tag;
  const bases = new Set(candidates.map((endpoint) => endpoint.tag.split('/')[0] ?? endpoint.tag));
  return bases.size === 1 ? [...bases][0]! : providerName;
}

const PRICE_KEYS = {
  // Reasoning tokens bill as output; cache writes can cost more than plain input.
  input: ['prompt', 'input_cache_write'],
  output: ['completion', 'internal_reasoning'],
  request: ['request'],
} as const;

function readPriceFields(
  pricing: Fields,
  where: string,
  problems: string[],
  requireBase: boolean,
): Price {
  const read = (keys: readonly string[]): number => {
    let max = 0;
    for (const key of keys) {
      const raw = pricing[key];
      if (raw === undefined || raw === null) {
        if (requireBase && (key === 'prompt' || key === 'completion'))
          problems.push(`${where}: pricing.${key} is missing`);
        continue;
      }
      const value = Number(raw);
      if (!Number.isFinite(value) || value < 0) {
        problems.push(
          `${where}: pricing.${key} is ${JSON.stringify(raw)}, not a fixed price in USD (variable pricing cannot be bounded)`,
        );
        continue;
      }
      max = Math.max(max, value);
    }
    return max;
  };
  return {
    inputUsdPerToken: read(PRICE_KEYS.input),
    outputUsdPerToken: read(PRICE_KEYS.output),
    requestUsd: read(PRICE_KEYS.request),
  };
}

function maxPrice(prices: readonly Price[]): Price {
  return {
    inputUsdPerToken: Math.max(0, ...prices.map((price) => price.inputUsdPerToken)),
    outputUsdPerToken: Math.max(0, ...prices.map((price) => price.outputUsdPerToken)),
    requestUsd: Math.max(0, ...prices.map((price) => price.requestUsd)),
  };
}

/**
 * Upper bound of a pricing object: the maximum over its base prices and every override
 * (long-context tiers, time windows), whatever their conditions. @internal
 */
export function pricingUpperBound(pricing: unknown, where: string, problems: string[]): Price {
  const fields = record(pricing);
  if (fields === null) {
    problems.push(`${where}: no pricing`);
    return { inputUsdPerToken: 0, outputUsdPerToken: 0, requestUsd: 0 };
  }
  const prices = [readPriceFields(fields, where, problems, true)];
  const overrides = Array.isArray(fields.overrides) ? fields.overrides : [];
  for (const [index, override] of overrides.entries()) {
    const overrideFields = record(override);
    if (overrideFields !== null)
      prices.push(readPriceFields(overrideFields, `${where} override ${index}`, problems, false));
  }
  return maxPrice(prices);
}

function checkRequests(models: readonly CatalogModelRequest[]): void {
  if (models.length === 0)
    throw new InvalidArgumentError('models', 'expected at least one model to look up, found none');
  for (const [index, request] of models.entries()) {
    if (!/^[^/\s]+\/[^/\s]+$/.test(request.model)) {
      throw new InvalidArgumentError(
        `models[${index}].model`,
        `expected an author/slug model ID, found ${JSON.stringify(request.model)}`,
      );
    }
    if (request.providers.length === 0 || request.providers.some((slug) => slug.trim() === '')) {
      throw new InvalidArgumentError(
        `models[${index}].providers`,
        'expected a non-empty allowlist of provider slugs',
      );
    }
    if (!Number.isInteger(request.maxOutputTokens) || request.maxOutputTokens < 1) {
      throw new InvalidArgumentError(
        `models[${index}].maxOutputTokens`,
        `expected an integer >= 1, found ${request.maxOutputTokens}`,
      );
    }
  }
}

/**
 * Reads model and per-endpoint prices from OpenRouter's public models API (`GET /models` and
 * `GET /models/{author}/{slug}/endpoints`) and checks the plan against them: the model exists,
 * every allowlisted provider slug matches an endpoint, and some matched endpoint accepts the
 * output cap. Each model's `price` is an upper bound (the maximum over the listed price and every
 * allowlisted endpoint's base prices and overrides). The result is plain JSON: write it to the
 * run folder and read it back with `parseCatalog`. Only reads; never touches the account.
 *
 * @throws {@link CatalogError} listing every problem; `ApiCallError` when a call fails.
 *
 * @example
 * ```ts
 * const catalog = await fetchCatalog({
 *   models: [{ model: 'moonshotai/kimi-k3', providers: ['moonshotai/mxfp4'], maxOutputTokens: 4096 }],
 * });
 * await writeFile('runs/pilot/catalog.json', `${JSON.stringify(catalog, null, 2)}\n`);
 * ```
 */
export async function fetchCatalog(options: FetchCatalogOptions): Promise<ModelCatalog> {
  checkRequests(options.models);
  const baseURL = (options.baseURL ?? OPENROUTER_BASE_URL).replace(/\/+$/, '');
  const getJson = catalogReader(options, baseURL);
  const problems: string[] = [];
  const listing = record(await getJson('models'));
  const listed = Array.isArray(listing?.data) ? listing.data.map(record) : [];
  const models: CatalogModel[] = [];
  for (const request of options.models) {
    const entry = listed.find((model) => model?.id === request.model) ?? null;
    if (entry === null) {
      problems.push(`model ${request.model} is not in the catalog (GET /models)`);
      continue;
    }
    const listedPrice = pricingUpperBound(entry.pricing, `${request.model}`, problems);
    const [author, slug] = request.model.split('/') as [string, string];
    const details = record(
      record(
        await getJson(`models/${encodeURIComponent(author)}/${encodeURIComponent(slug)}/endpoints`),
      )?.data,
    );
    const endpoints = readEndpoints(details, request, problems);
    checkAllowlistEndpoints(request, endpoints, problems);
    models.push({
      model: request.model,
      providers: [...request.providers],
      maxOutputTokens: request.maxOutputTokens,
      price: maxPrice([
        listedPrice,
        ...endpoints.filter((endpoint) => endpoint.allowed).map((endpoint) => endpoint.price),
      ]),
      endpoints,
    });
  }
  if (problems.length > 0) throw new CatalogError(problems);
  return {
    kind: 'model-catalog',
    schemaVersion: 1,
    source: baseURL,
    fetchedAt: (options.now ?? (() => new Date()))().toISOString(),
    models,
  };
}

/**
 * A `GET` of the catalog API as parsed JSON, within the catalog's deadline; throws `ApiCallError`
 * (secrets scrubbed) for a failed call, a non-2xx status or a body that is not JSON.
 */
function catalogReader(
  options: FetchCatalogOptions,
  baseURL: string,
): (path: string) => Promise<unknown> {
  const secrets = options.apiKey === undefined ? [] : [options.apiKey];
  const deadlineMs = options.deadlineMs ?? 30_000;
  const http = ky.create({
    prefixUrl: baseURL,
    retry: 0,
    timeout: false,
    throwHttpErrors: false,
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
    headers: options.apiKey === undefined ? {} : { authorization: `Bearer ${options.apiKey}` },
  });
  return async (path) => {
    const url = `${baseURL}/${path}`;
    const deadline = AbortSignal.timeout(deadlineMs);
    const signal =
      options.signal === undefined ? deadline : AbortSignal.any([deadline, options.signal]);
    let status: number | null = null;
    let body: string;
    try {
      const response = await http.get(path, { signal });
      status = response.status;
      body = await response.text();
    } catch (error) {
      const why = deadline.aborted
        ? `no complete answer within ${deadlineMs} ms`
        : error instanceof Error
          ? error.message
          : String(error);
      throw new ApiCallError({
        message: `GET ${url} failed: ${scrubSecrets(why, secrets)}`,
        url,
        status,
        body: null,
        isRetryable: !options.signal?.aborted,
        cause: error,
      });
    }
    return parseCatalogBody(url, status, body, secrets);
  };
}

/** The JSON of a catalog answer; `ApiCallError` for a non-2xx status or a body that is not JSON. */
function parseCatalogBody(
  url: string,
  status: number,
  body: string,
  secrets: readonly string[],
): unknown {
  // Scrub first, then cut: a cut through an echoed key would leave a fragment.
  const shown = scrubSecrets(body, secrets).slice(0, 500);
  if (status < 200 || status > 299) {
    throw new ApiCallError({
      message: `GET ${url} answered HTTP ${status}`,
      url,
      status,
      body: shown,
      isRetryable: status === 429 || status >= 500,
    });
  }
  try {
    return JSON.parse(body);
  } catch (error) {
    throw new ApiCallError({
      message: `GET ${url} answered HTTP ${status} with a body that is not JSON`,
      url,
      status,
      body: shown,
      isRetryable: false,
      cause: error,
    });
  }
}

/** The endpoints of a model's endpoint listing, each marked allowed when the allowlist matches it. */
function readEndpoints(
  details: Record<string, unknown> | null,
  request: CatalogModelRequest,
  problems: string[],
): CatalogEndpoint[] {
  const rawEndpoints = Array.isArray(details?.endpoints) ? details.endpoints.map(record) : [];
  const endpoints: CatalogEndpoint[] = [];
  for (const raw of rawEndpoints) {
    if (raw === null || typeof raw.tag !== 'string' || typeof raw.provider_name !== 'string')
      continue;
    const tag = raw.tag;
    const allowed = request.providers.some((wanted) => matchesProviderSlug(wanted, tag));
    endpoints.push({
      providerName: raw.provider_name,
      tag,
      quantization: typeof raw.quantization === 'string' ? raw.quantization : null,
      maxCompletionTokens: optionalCount(raw.max_completion_tokens),
      contextLength: optionalCount(raw.context_length),
      // Only allowed endpoints can be routed to, so only their prices must be valid.
      price: pricingUpperBound(
        raw.pricing,
        `${request.model} endpoint ${tag}`,
        allowed ? problems : [],
      ),
      allowed,
    });
  }
  return endpoints;
}

/** Every allowlisted slug matches an endpoint, and one of its endpoints accepts the output cap. */
function checkAllowlistEndpoints(
  request: CatalogModelRequest,
  endpoints: readonly CatalogEndpoint[],
  problems: string[],
): void {
  for (const wanted of request.providers) {
    const matched = endpoints.filter((endpoint) => matchesProviderSlug(wanted, endpoint.tag));
    if (matched.length === 0) {
      const known = endpoints.map((endpoint) => endpoint.tag).join(', ') || 'none';
      problems.push(
        `${request.model}: provider slug ${wanted} matches no endpoint (endpoints: ${known})`,
      );
      continue;
    }
    const fits = matched.filter(
      (endpoint) =>
        endpoint.maxCompletionTokens === null ||
        endpoint.maxCompletionTokens >= request.maxOutputTokens,
    );
    if (fits.length === 0) {
      const limits = matched
        .map((endpoint) => `${endpoint.tag} accepts ${endpoint.maxCompletionTokens}`)
        .join(', ');
      problems.push(
        `${request.model}: no ${wanted} endpoint accepts the output cap of ${request.maxOutputTokens} tokens (${limits})`,
      );
    }
  }
}

/**
 * Parses a cached catalog (e.g. `JSON.parse` of the run folder's `catalog.json`).
 *
 * @throws `ValidationError` naming every bad path.
 */
export function parseCatalog(value: unknown): ModelCatalog {
  return parseWith(ModelCatalogSchema, value, 'model catalog');
}

/**
 * The catalog entry of one model, for `createOpenRouterModel({ catalog })`.
 *
 * @throws `InvalidArgumentError` when the catalog has no entry for the model.
 */
export function catalogEntry(catalog: ModelCatalog, model: string): CatalogModel {
  const entry = catalog.models.find((candidate) => candidate.model === model);
  if (entry === undefined) {
    throw new InvalidArgumentError(
      'model',
      `${model} is not in the catalog (it has ${catalog.models.map((m) => m.model).join(', ') || 'no models'})`,
    );
  }
  return entry;
}
