import { ApiCallError } from '@chi/spec';
import type { CatalogEndpoint } from '@chi/spec/internal';
import { afterEach, describe, expect, it } from 'vitest';
import { type LoopbackOpenRouter, startLoopbackOpenRouter } from '../test/loopback-openrouter';
import {
  CatalogError,
  catalogEntry,
  fetchCatalog,
  matchesProviderSlug,
  parseCatalog,
  providerSlugFor,
} from './catalog';

const KEY = 'sk-or-v1-FAKE-CATALOG-KEY-0c1d2e3f4a5b';

const MODELS = [
  {
    id: 'moonshotai/kimi-k3',
    pricing: {
      prompt: '0.0000006',
      completion: '0.0000025',
      request: '0',
      internal_reasoning: '0.000003',
    },
  },
  { id: 'openrouter/auto', pricing: { prompt: '-1', completion: '-1' } },
];
const ENDPOINTS = {
  'moonshotai/kimi-k3': [
    {
      provider_name: 'Moonshot AI',
      tag: 'moonshotai/mxfp4',
      quantization: 'mxfp4',
      max_completion_tokens: 16384,
      context_length: 262144,
      pricing: {
        prompt: '0.0000006',
        completion: '0.0000025',
        input_cache_write: '0.0000007',
        overrides: [{ min_prompt_tokens: 128000, prompt: '0.0000012', completion: '0.000005' }],
      },
    },
    {
      provider_name: 'Moonshot AI',
      tag: 'moonshotai/int4',
      quantization: 'int4',
      max_completion_tokens: 2048,
      context_length: 131072,
      pricing: { prompt: '0.000009', completion: '0.000009', request: '0.01' },
    },
    {
      provider_name: 'Relace',
      tag: 'relace',
      quantization: null,
      max_completion_tokens: null,
      pricing: { prompt: '-1', completion: '0.00001' },
    },
  ],
  'openrouter/auto': [],
};

let server: LoopbackOpenRouter | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

async function start(extra: Parameters<typeof startLoopbackOpenRouter>[0] = {}) {
  server = await startLoopbackOpenRouter({ models: MODELS, endpoints: ENDPOINTS, ...extra });
  return server;
}

describe('matchesProviderSlug', () => {
  it('matches a base slug to every endpoint of the provider and a full slug to its tag only', () => {
    expect(matchesProviderSlug('moonshotai', 'moonshotai/mxfp4')).toBe(true);
    expect(matchesProviderSlug('moonshotai', 'moonshotai')).toBe(true);
    expect(matchesProviderSlug('moonshotai/mxfp4', 'moonshotai/mxfp4')).toBe(true);
    expect(matchesProviderSlug('moonshotai/mxfp4', 'moonshotai/int4')).toBe(false);
    expect(matchesProviderSlug('moonshotai/mxfp4', 'moonshotai')).toBe(false);
    expect(matchesProviderSlug('xai', 'x-ai')).toBe(false);
  });
});

describe('providerSlugFor', () => {
  const price = { inputUsdPerToken: 0, outputUsdPerToken: 0, requestUsd: 0 };
  const endpoint = (providerName: string, tag: string, allowed: boolean): CatalogEndpoint => ({
    providerName,
    tag,
    quantization: null,
    maxCompletionTokens: null,
    contextLength: null,
    price,
    allowed,
  });
  it('prefers the allowed endpoint with that display name, then the shared base slug', () => {
    const endpoints = [
      endpoint('Moonshot AI', 'moonshotai/mxfp4', true),
      endpoint('Moonshot AI', 'moonshotai/int4', false),
    ];
    expect(providerSlugFor('Moonshot AI', endpoints)).toBe('moonshotai/mxfp4');
    expect(
      providerSlugFor(
        'Moonshot AI',
        endpoints.map((e) => ({ ...e, allowed: false })),
      ),
    ).toBe('moonshotai');
    expect(providerSlugFor('Unknown Co', endpoints)).toBe('Unknown Co');
  });
});

describe('fetchCatalog', () => {
  it('bounds the price over the listed price and the allowlisted endpoints, overrides included', async () => {
    const loopback = await start();
    const catalog = await fetchCatalog({
      baseURL: loopback.baseURL,
      apiKey: KEY,
      models: [
        { model: 'moonshotai/kimi-k3', providers: ['moonshotai/mxfp4'], maxOutputTokens: 4096 },
      ],
      now: () => new Date('2026-09-01T09:00:00.000Z'),
    });
    expect(catalog.source).toBe(loopback.baseURL);
    expect(catalog.fetchedAt).toBe('2026-09-01T09:00:00.000Z');
    const kimi = catalogEntry(catalog, 'moonshotai/kimi-k3');
    // input: max(0.6e-6 listed, 0.7e-6 cache write, 1.2e-6 long-context override);
    // output: max(3e-6 listed reasoning, 5e-6 override); the disallowed int4 endpoint is ignored.
    expect(kimi.price).toEqual({
      inputUsdPerToken: 0.0000012,
      outputUsdPerToken: 0.000005,
      requestUsd: 0,
    });
    expect(kimi.endpoints.map((e) => [e.tag, e.allowed, e.maxCompletionTokens])).toEqual([
      ['moonshotai/mxfp4', true, 16384],
      ['moonshotai/int4', false, 2048],
      ['relace', false, null],
    ]);
    expect(loopback.received.map((r) => r.path)).toEqual([
      '/models',
      '/models/moonshotai/kimi-k3/endpoints',
    ]);
    expect(loopback.received[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
    // Cacheable: survives a JSON round trip through the run folder.
    expect(parseCatalog(JSON.parse(JSON.stringify(catalog)))).toEqual(catalog);
  });

  it('a base slug selects every endpoint of the provider and bounds over all of them', async () => {
    const loopback = await start();
    const catalog = await fetchCatalog({
      baseURL: loopback.baseURL,
      models: [{ model: 'moonshotai/kimi-k3', providers: ['moonshotai'], maxOutputTokens: 4096 }],
    });
    expect(catalog.models[0]!.price).toEqual({
      inputUsdPerToken: 0.000009,
      outputUsdPerToken: 0.000009,
      requestUsd: 0.01,
    });
    expect(loopback.received[0]!.headers.authorization).toBeUndefined();
  });

  it('lists every problem: unknown slug, cap above the endpoint limit, unknown model, variable price', async () => {
    const loopback = await start();
    let caught: unknown;
    try {
      await fetchCatalog({
        baseURL: loopback.baseURL,
        models: [
          {
            model: 'moonshotai/kimi-k3',
            providers: ['moonshotai/fp8', 'moonshotai/int4', 'relace'],
            maxOutputTokens: 4096,
          },
          { model: 'x-ai/grok-4.6', providers: ['xai'], maxOutputTokens: 4096 },
          { model: 'openrouter/auto', providers: ['any'], maxOutputTokens: 10 },
        ],
      });
    } catch (error) {
      caught = error;
    }
    expect(CatalogError.isInstance(caught)).toBe(true);
    expect((caught as CatalogError).problems).toEqual([
      'moonshotai/kimi-k3 endpoint relace: pricing.prompt is "-1", not a fixed price in USD (variable pricing cannot be bounded)',
      'moonshotai/kimi-k3: provider slug moonshotai/fp8 matches no endpoint (endpoints: moonshotai/mxfp4, moonshotai/int4, relace)',
      'moonshotai/kimi-k3: no moonshotai/int4 endpoint accepts the output cap of 4096 tokens (moonshotai/int4 accepts 2048)',
      'model x-ai/grok-4.6 is not in the catalog (GET /models)',
      'openrouter/auto: pricing.prompt is "-1", not a fixed price in USD (variable pricing cannot be bounded)',
      'openrouter/auto: pricing.completion is "-1", not a fixed price in USD (variable pricing cannot be bounded)',
      'openrouter/auto: provider slug any matches no endpoint (endpoints: none)',
    ]);
  });

  it('turns an HTTP error into an ApiCallError that never carries the key', async () => {
    const loopback = await start({ modelsStatus: 401 });
    let caught: unknown;
    try {
      await fetchCatalog({
        baseURL: loopback.baseURL,
        apiKey: KEY,
        models: [{ model: 'moonshotai/kimi-k3', providers: ['moonshotai'], maxOutputTokens: 1 }],
      });
    } catch (error) {
      caught = error;
    }
    expect(ApiCallError.isInstance(caught)).toBe(true);
    const error = caught as ApiCallError;
    expect(error).toMatchObject({
      status: 401,
      isRetryable: false,
      url: `${loopback.baseURL}/models`,
    });
    expect(error.message).toBe(`GET ${loopback.baseURL}/models answered HTTP 401`);
    expect(
      JSON.stringify({ message: error.message, body: error.body, url: error.url }),
    ).not.toContain(KEY);
  });

  it('scrubs an echoed key before cutting the error body, so no fragment of it survives', async () => {
    // The body is cut to 500 characters; the echo straddles the cut.
    const message = `${'z'.repeat(425)} Authorization: Bearer ${KEY}`;
    const loopback = await start({ modelsStatus: 401, modelsErrorMessage: message });
    const caught = await fetchCatalog({
      baseURL: loopback.baseURL,
      apiKey: KEY,
      models: [{ model: 'moonshotai/kimi-k3', providers: ['moonshotai'], maxOutputTokens: 1 }],
    }).catch((error: unknown) => error);
    expect(ApiCallError.isInstance(caught)).toBe(true);
    const body = String((caught as ApiCallError).body);
    expect(body).toContain('Bearer [REDACTED]');
    for (let start = 0; start + 8 <= KEY.length; start++)
      expect(body).not.toContain(KEY.slice(start, start + 8));
  });

  it('refuses malformed requests before any call', async () => {
    await expect(fetchCatalog({ models: [] })).rejects.toThrow(
      'models: expected at least one model to look up, found none',
    );
    await expect(
      fetchCatalog({ models: [{ model: 'kimi', providers: ['x'], maxOutputTokens: 1 }] }),
    ).rejects.toThrow('models[0].model: expected an author/slug model ID, found "kimi"');
    await expect(
      fetchCatalog({ models: [{ model: 'a/b', providers: [], maxOutputTokens: 1 }] }),
    ).rejects.toThrow('models[0].providers');
  });

  it('catalogEntry names the models it has when one is missing', () => {
    const catalog = {
      kind: 'model-catalog' as const,
      schemaVersion: 1 as const,
      source: 'x',
      fetchedAt: '2026-09-01T09:00:00.000Z',
      models: [],
    };
    expect(() => catalogEntry(catalog, 'a/b')).toThrow(
      'model: a/b is not in the catalog (it has no models)',
    );
  });
});
