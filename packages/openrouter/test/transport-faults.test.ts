import { type ChatRequest, type ChatResult, ChatResultSchema } from '@chi/spec';
import { checkChatModelContract, checkChatResult } from '@chi/spec/test';
import { afterEach, describe, expect, it } from 'vitest';
import { createMemoryLedger } from '../src/memory-ledger';
import { createOpenRouterModel, type OpenRouterModelSettings } from '../src/openrouter-model';
import {
  type Fault,
  type LoopbackOpenRouter,
  type LoopbackOptions,
  startLoopbackOpenRouter,
} from './loopback-openrouter';

// A recognizable fake key: no result, log, error or ledger line may ever contain it.
const KEY = 'sk-or-v1-FAKE-TEST-KEY-5f2c9a7e31d04b68';
const PRICE = { inputUsdPerToken: 1e-6, outputUsdPerToken: 4e-6, requestUsd: 0 };
// [{"role":"user","content":"Say OK."}] is 37 bytes: (37 x 1e-6 + 100 x 4e-6) x (1 + 0) USD.
const RESERVATION = 0.000437;
const MODEL_ID = 'moonshotai/kimi-k3';
const REDACTED_TEXT = '[REDACTED]';

let server: LoopbackOpenRouter | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

function request(requestId = 'req-1', extra: Partial<ChatRequest> = {}): ChatRequest {
  return { requestId, messages: [{ role: 'user', content: 'Say OK.' }], ...extra };
}

async function setup(
  loopback: LoopbackOptions,
  settings: Partial<OpenRouterModelSettings> = {},
  ceilingUsd = 1,
) {
  server = await startLoopbackOpenRouter(loopback);
  const ledger = createMemoryLedger({ ceilingUsd });
  const waits: number[] = [];
  const model = createOpenRouterModel({
    model: MODEL_ID,
    providers: ['moonshotai/mxfp4'],
    apiKey: KEY,
    baseURL: server.baseURL,
    ledger,
    safetyPrice: PRICE,
    reservationMargin: 0,
    maxOutputTokens: 100,
    sleep: async (ms) => {
      waits.push(ms);
    },
    ...settings,
  });
  return { model, ledger, waits, server };
}

function script(...faults: Fault[]): LoopbackOptions {
  return { onCompletion: (_request, index) => faults[Math.min(index, faults.length - 1)]! };
}

function conforming(result: ChatResult, requestId = 'req-1'): ChatResult {
  expect(
    checkChatResult(result, {
      model: { modelId: MODEL_ID, evidenceClass: 'live_model' },
      request: { requestId },
    }),
  ).toEqual([]);
  expect(JSON.stringify(result)).not.toContain(KEY);
  expect(JSON.stringify(result)).not.toContain('HIDDEN-REASONING-TEXT');
  return result;
}

describe('request shape', () => {
  it('sends model, messages, max_tokens, low reasoning, a pinned provider and no forbidden field', async () => {
    const { model } = await setup({}, { appUrl: 'https://chi.example', appTitle: 'CHI pilot' });
    conforming(await model.generate(request()));
    const sent = server!.received[0]!;
    expect(sent.path).toBe('/chat/completions');
    expect(sent.body).toEqual({
      model: MODEL_ID,
      messages: [{ role: 'user', content: 'Say OK.' }],
      max_tokens: 100,
      reasoning: { effort: 'low' },
      provider: { only: ['moonshotai/mxfp4'], allow_fallbacks: false, require_parameters: true },
      plugins: [{ id: 'context-compression', enabled: false }],
    });
    expect(sent.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(sent.headers['http-referer']).toBe('https://chi.example');
    expect(sent.headers['x-openrouter-title']).toBe('CHI pilot');
  });

  it('sends only standard fields to an OpenAI-compatible server, and no key when none is given', async () => {
    server = await startLoopbackOpenRouter({});
    const local = createOpenRouterModel({
      mode: 'openai-compatible',
      model: 'qwen3-8b',
      baseURL: server.baseURL,
      appTitle: 'ignored here',
    });
    const result = await local.generate({
      requestId: 'l-1',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(result.failure).toBe('none');
    expect(local.provider).toBe('openai-compatible');
    const sent = server.received[0]!;
    expect(sent.body).toEqual({
      model: 'qwen3-8b',
      messages: [{ role: 'user', content: 'hi' }],
      max_tokens: 4096,
    });
    expect(sent.headers.authorization).toBeUndefined();
    expect(sent.headers['x-openrouter-title']).toBeUndefined();
    expect(sent.headers['http-referer']).toBeUndefined();
    // No ledger: nothing reserved; the reported usage.cost is recorded as the charge.
    expect(result.reservedUsd).toBe(0);
    expect(result.chargedUsd).toBe(0.0001);
  });

  it('sends reasoning to an OpenAI-compatible server only when configured', async () => {
    server = await startLoopbackOpenRouter({});
    const local = createOpenRouterModel({
      mode: 'openai-compatible',
      model: 'm',
      baseURL: server.baseURL,
      reasoningEffort: 'high',
      apiKey: 'EMPTY',
    });
    await local.generate(request());
    expect(server.received[0]!.body?.reasoning).toEqual({ effort: 'high' });
    expect(server.received[0]!.headers.authorization).toBe('Bearer EMPTY');
  });
});

describe('a successful completion', () => {
  it('records identifiers, usage, the settled charge and a redacted body', async () => {
    const { model, ledger } = await setup(script({ kind: 'ok', content: 'OK', costUsd: 0.0002 }));
    const result = conforming(await model.generate(request()));
    expect(ChatResultSchema.parse(result)).toEqual(result);
    expect(result).toMatchObject({
      text: 'OK',
      failure: 'none',
      failureDetail: null,
      finishReason: 'stop',
      truncated: false,
      requestedModel: MODEL_ID,
      returnedModel: MODEL_ID,
      returnedProvider: 'Moonshot AI',
      generationId: 'gen-0',
      usage: {
        promptTokens: 40,
        completionTokens: 12,
        reasoningTokens: 5,
        totalTokens: 52,
        costUsd: 0.0002,
      },
      reservedUsd: RESERVATION,
      chargedUsd: 0.0002,
    });
    expect(result.tries).toEqual([
      {
        tryIndex: 0,
        startedAt: expect.any(String),
        status: 200,
        failure: 'none',
        detail: null,
        waitMs: null,
        waitSource: null,
      },
    ]);
    const message = (result.redactedResponse as { choices: { message: Record<string, unknown> }[] })
      .choices[0]!.message;
    expect(message).toEqual({ role: 'assistant', content: 'OK' });
    expect(await ledger.state()).toMatchObject({
      settledUsd: 0.0002,
      retainedUsd: 0,
      openReservations: 0,
    });
    const entries = await ledger.entries();
    expect(entries.slice(1).map((entry) => entry.kind)).toEqual(['reserve', 'settle']);
    expect(entries[1]).toMatchObject({
      kind: 'reserve',
      attemptId: 'req-1#0',
      amountUsd: RESERVATION,
    });
    expect(entries[2]).toMatchObject({
      kind: 'settle',
      reservationId: 'res-1',
      chargedUsd: 0.0002,
      source: 'usage.cost',
    });
  });

  it('maps the provider display name to its allowlist slug through the catalog endpoints', async () => {
    const endpoint = {
      providerName: 'Moonshot AI',
      tag: 'moonshotai/mxfp4',
      quantization: 'mxfp4',
      maxCompletionTokens: 16384,
      contextLength: 262144,
      price: PRICE,
      allowed: true,
    };
    const other = { ...endpoint, tag: 'moonshotai/int4', allowed: false };
    const { model } = await setup(
      {},
      {
        catalog: {
          model: MODEL_ID,
          providers: ['moonshotai/mxfp4'],
          maxOutputTokens: 4096,
          price: PRICE,
          endpoints: [endpoint, other],
        },
      },
    );
    expect((await model.generate(request())).returnedProvider).toBe('moonshotai/mxfp4');
  });

  it('fails a response from a provider outside the allowlist as provider_not_allowed, keeping its text', async () => {
    const endpoint = {
      providerName: 'Relace',
      tag: 'relace',
      quantization: null,
      maxCompletionTokens: null,
      contextLength: null,
      price: PRICE,
      allowed: false,
    };
    const mine = {
      ...endpoint,
      providerName: 'Moonshot AI',
      tag: 'moonshotai/mxfp4',
      allowed: true,
    };
    const { model } = await setup(
      script({ kind: 'ok', provider: 'Relace', completionTokens: 150 }),
      {
        catalog: {
          model: MODEL_ID,
          providers: ['moonshotai/mxfp4'],
          maxOutputTokens: 4096,
          price: PRICE,
          endpoints: [endpoint, mine],
        },
      },
    );
    const result = conforming(await model.generate(request()));
    // A configuration failure (issue 15): the block is incomplete, the reply is never scored.
    expect(result.failure).toBe('provider_not_allowed');
    expect(result.text).toBe('OK');
    expect(result.returnedProvider).toBe('relace');
    expect(result.failureDetail).toBe(
      'provider relace is outside the allowlist [moonshotai/mxfp4]; usage.completion_tokens 150 exceeds the output cap of 100',
    );
  });

  it('meets the ChatModel contract', async () => {
    const { model } = await setup({});
    expect(await checkChatModelContract(model)).toEqual([]);
  });
});

describe('retryable infrastructure failures', () => {
  it('429 with Retry-After: waits exactly that long, logs the wait, settles the 429 at 0', async () => {
    const { model, ledger, waits } = await setup(
      script({ kind: 'status', status: 429, retryAfter: '2' }, { kind: 'ok', costUsd: 0.0003 }),
    );
    const result = conforming(await model.generate(request()));
    expect(result.failure).toBe('none');
    expect(waits).toEqual([2000]);
    expect(
      result.tries.map(({ status, failure, waitMs, waitSource }) => ({
        status,
        failure,
        waitMs,
        waitSource,
      })),
    ).toEqual([
      { status: 429, failure: 'http_retryable', waitMs: 2000, waitSource: 'retry_after' },
      { status: 200, failure: 'none', waitMs: null, waitSource: null },
    ]);
    expect(result.tries[0]!.detail).toBe('HTTP 429: injected 429 (injected)');
    expect(result).toMatchObject({ reservedUsd: 2 * RESERVATION, chargedUsd: 0.0003 });
    const settles = (await ledger.entries()).filter((entry) => entry.kind === 'settle');
    expect(
      settles.map((entry) => entry.kind === 'settle' && [entry.chargedUsd, entry.source]),
    ).toEqual([
      [0, 'not_billed:http_429'],
      [0.0003, 'usage.cost'],
    ]);
    expect(server!.received.filter((r) => r.path === '/chat/completions')).toHaveLength(2);
  });

  it('429 with an HTTP-date Retry-After is honored relative to the clock', async () => {
    const now = () => new Date('2026-10-21T07:27:30.000Z');
    const { model, waits } = await setup(
      script(
        { kind: 'status', status: 429, retryAfter: 'Wed, 21 Oct 2026 07:27:35 GMT' },
        { kind: 'ok' },
      ),
      { now },
    );
    const result = conforming(await model.generate(request()));
    expect(waits).toEqual([5000]);
    expect(result.tries[0]).toMatchObject({ waitMs: 5000, waitSource: 'retry_after' });
  });

  it('429 without Retry-After: backs off 1 s then 4 s, gives up after two retries', async () => {
    const { model, ledger, waits } = await setup(script({ kind: 'status', status: 429 }));
    const result = conforming(await model.generate(request()));
    expect(waits).toEqual([1000, 4000]);
    expect(result.failure).toBe('http_retryable');
    expect(result.tries.map((t) => [t.status, t.waitMs, t.waitSource])).toEqual([
      [429, 1000, 'backoff'],
      [429, 4000, 'backoff'],
      [429, null, null],
    ]);
    expect(result.failureDetail).toBe(
      'HTTP 429: injected 429 (injected); no retries left (2 allowed)',
    );
    expect(result).toMatchObject({ text: null, reservedUsd: 3 * RESERVATION, chargedUsd: 0 });
    expect(await ledger.state()).toMatchObject({ committedUsd: 0, openReservations: 0 });
  });

  it('a Retry-After above the cap ends the request instead of retrying early', async () => {
    const { model, waits } = await setup(
      script({ kind: 'status', status: 429, retryAfter: '120' }),
    );
    const result = conforming(await model.generate(request()));
    expect(waits).toEqual([]);
    expect(result.failure).toBe('http_retryable');
    expect(result.tries).toHaveLength(1);
    expect(result.failureDetail).toBe(
      'HTTP 429: injected 429 (injected); Retry-After asks for 120000 ms, above the cap of 30000 ms: not retried',
    );
  });

  it.each([500, 502, 503])(
    'HTTP %i is retried and each failed try keeps its whole reservation',
    async (status) => {
      const { model, ledger, waits } = await setup(
        script(
          { kind: 'status', status },
          { kind: 'status', status },
          { kind: 'ok', costUsd: 0.0001 },
        ),
      );
      const result = conforming(await model.generate(request()));
      expect(result.failure).toBe('none');
      expect(waits).toEqual([1000, 4000]);
      expect(result.tries.map((t) => t.status)).toEqual([status, status, 200]);
      expect(result.reservedUsd).toBeCloseTo(3 * RESERVATION, 12);
      expect(result.chargedUsd).toBeCloseTo(2 * RESERVATION + 0.0001, 12);
      expect(await ledger.state()).toMatchObject({
        retainedUsd: 2 * RESERVATION,
        settledUsd: 0.0001,
      });
    },
  );

  it('a 5xx whose generation can be looked up is settled at the looked-up cost', async () => {
    const { model, ledger } = await setup({
      ...script(
        { kind: 'status', status: 502, generationId: 'gen-502' },
        { kind: 'ok', costUsd: 0.0001 },
      ),
      generations: { 'gen-502': { totalCostUsd: 0.00005 } },
    });
    conforming(await model.generate(request()));
    const settles = (await ledger.entries()).filter((entry) => entry.kind === 'settle');
    expect(
      settles.map((entry) => entry.kind === 'settle' && [entry.chargedUsd, entry.source]),
    ).toEqual([
      [0.00005, 'generation.total_cost'],
      [0.0001, 'usage.cost'],
    ]);
  });

  it('a connection reset before the response is retried and keeps its reservation', async () => {
    const { model, ledger, waits } = await setup(
      script({ kind: 'reset' }, { kind: 'ok', costUsd: 0.0001 }),
    );
    const result = conforming(await model.generate(request()));
    expect(result.failure).toBe('none');
    expect(waits).toEqual([1000]);
    expect(result.tries[0]).toMatchObject({
      status: null,
      failure: 'connection_retryable',
      waitMs: 1000,
      waitSource: 'backoff',
    });
    expect(result.tries[0]!.detail).toMatch(/^connection failed before any response: /);
    expect(await ledger.state()).toMatchObject({ retainedUsd: RESERVATION, settledUsd: 0.0001 });
  });

  it('a refused connection proves nothing was sent: settled at 0, retried twice', async () => {
    const probe = await startLoopbackOpenRouter({});
    const deadURL = probe.baseURL;
    await probe.close();
    const { model, ledger } = await setup({}, { baseURL: deadURL });
    const result = conforming(await model.generate(request()));
    expect(result.failure).toBe('connection_retryable');
    expect(result.tries).toHaveLength(3);
    expect(result.failureDetail).toMatch(/^connection failed before any response: ECONNREFUSED/);
    const settles = (await ledger.entries()).filter((entry) => entry.kind === 'settle');
    expect(settles.map((entry) => entry.kind === 'settle' && entry.source)).toEqual([
      'not_sent:ECONNREFUSED',
      'not_sent:ECONNREFUSED',
      'not_sent:ECONNREFUSED',
    ]);
    expect(result.chargedUsd).toBe(0);
  });
});

describe('configuration failures (the block is incomplete, never scored)', () => {
  it('an HTTP 404 "no endpoints" is a routing failure: one try, not retried, settled at 0', async () => {
    const body = JSON.stringify({
      error: { code: 404, message: 'No endpoints found matching your data policy and parameters' },
    });
    const { model, ledger, waits } = await setup(script({ kind: 'status', status: 404, body }));
    const result = conforming(await model.generate(request()));
    expect(result.failure).toBe('no_route');
    expect(result.failureDetail).toMatch(/No endpoints found/);
    expect(result.tries.map((t) => [t.status, t.failure])).toEqual([[404, 'no_route']]);
    expect(waits).toEqual([]);
    expect((await ledger.state()).retainedUsd).toBe(0);
  });

  it('a response naming another model than the requested one is a model_mismatch', async () => {
    const { model } = await setup(script({ kind: 'ok', model: 'moonshotai/kimi-k3-0905' }));
    const result = conforming(await model.generate(request()));
    expect(result.failure).toBe('model_mismatch');
    expect(result.returnedModel).toBe('moonshotai/kimi-k3-0905');
    expect(result.text).toBe('OK');
    expect(result.failureDetail).toBe(
      'the API returned model moonshotai/kimi-k3-0905, not the requested moonshotai/kimi-k3',
    );
  });
});

describe('the 180 s deadline is one deadline per request, tries and waits included', () => {
  it('stops retrying when the tries of a request add up past the deadline', async () => {
    // A fake clock: every 503 the server sends takes 100 s of it, every wait its own length, so
    // the tries add up past 180 s without the test waiting for anything.
    let clockMs = Date.parse('2026-12-01T00:00:00.000Z');
    const { model, waits } = await setup(
      {
        onCompletion: () => {
          clockMs += 100_000;
          return { kind: 'status', status: 503 };
        },
      },
      {
        now: () => new Date(clockMs),
        sleep: async (ms) => {
          waits.push(ms);
          clockMs += ms;
        },
      },
    );
    const result = conforming(await model.generate(request()));
    // Try 0 ends at 100 s, the 1 s backoff, try 1 ends at 201 s: past 180 s, so no try 2.
    expect(result.tries.map((t) => t.status)).toEqual([503, 503]);
    expect(server!.received).toHaveLength(2);
    expect(waits).toEqual([1000]);
    // The request ends as the infrastructure failure that asked for the retry.
    expect(result.failure).toBe('http_retryable');
    expect(result.failureDetail).toMatch(
      /no retry: the 180000 ms request deadline leaves 0 ms, less than the 4000 ms wait$/,
    );
  });

  it('gives a retry only what is left of the deadline', async () => {
    let clockMs = Date.parse('2026-12-01T00:00:00.000Z');
    const { model } = await setup(
      {
        onCompletion: (_request, index) => {
          if (index === 0) {
            clockMs += 1_000;
            return { kind: 'status', status: 503 };
          }
          return { kind: 'hang' };
        },
      },
      {
        // 200 ms of the clock left after try 0 and its wait: try 1 is cut after 200 real ms.
        deadlineMs: 2_200,
        now: () => new Date(clockMs),
        sleep: async (ms) => {
          clockMs += ms;
        },
      },
    );
    const result = conforming(await model.generate(request()));
    expect(result.tries.map((t) => [t.status, t.failure])).toEqual([
      [503, 'http_retryable'],
      [null, 'timeout'],
    ]);
    expect(result.failure).toBe('http_retryable');
    expect(result.failureDetail).toMatch(/the 2200 ms request deadline passed during retry 1/);
  });
});

describe('failures that are never retried', () => {
  it('a response slower than the deadline is a timeout: one try, reservation retained', async () => {
    const { model, ledger, waits } = await setup(script({ kind: 'hang' }), { deadlineMs: 150 });
    const result = conforming(await model.generate(request()));
    expect(result).toMatchObject({
      failure: 'timeout',
      text: null,
      chargedUsd: RESERVATION,
      reservedUsd: RESERVATION,
    });
    expect(result.failureDetail).toBe(
      'timeout: no complete response within the 150 ms deadline (before the response headers)',
    );
    expect(result.tries).toHaveLength(1);
    expect(waits).toEqual([]);
    expect(server!.received).toHaveLength(1);
    expect(await ledger.state()).toMatchObject({
      retainedUsd: RESERVATION,
      settledUsd: 0,
      openReservations: 0,
    });
  });

  it('the deadline also covers a body that stalls after the headers', async () => {
    // Long enough for the headers to arrive even on a loaded machine; the body never completes.
    const { model, ledger } = await setup(script({ kind: 'hang_after_headers' }), {
      deadlineMs: 1500,
    });
    const result = conforming(await model.generate(request()));
    expect(result.failure).toBe('timeout');
    expect(result.failureDetail).toBe(
      'timeout: no complete response within the 1500 ms deadline (while reading the body)',
    );
    expect(result.tries.map((t) => t.status)).toEqual([200]);
    expect(await ledger.state()).toMatchObject({ retainedUsd: RESERVATION });
  });

  it('the deadline ends a body read even when the fetch underneath never sees the abort', async () => {
    // A fetch whose body stalls after the headers and ignores every abort signal: what a fetch
    // does when the combined signal it was given has been garbage-collected (Node 20). Before,
    // reading this body waited forever.
    const stalledFetch = async (): Promise<Response> =>
      new Response(
        new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(new TextEncoder().encode('{"id":'));
          },
        }),
        { status: 200, headers: { 'content-type': 'application/json' } },
      );
    const { model, ledger } = await setup(script({ kind: 'ok' }), {
      deadlineMs: 200,
      fetch: stalledFetch,
    });
    const result = conforming(await model.generate(request()));
    expect(result.failure).toBe('timeout');
    expect(result.failureDetail).toBe(
      'timeout: no complete response within the 200 ms deadline (while reading the body)',
    );
    expect(await ledger.state()).toMatchObject({ retainedUsd: RESERVATION });
  });

  it('a connection lost after the headers is not retried and keeps its reservation', async () => {
    const { model, ledger } = await setup(script({ kind: 'reset_after_headers' }, { kind: 'ok' }));
    const result = conforming(await model.generate(request()));
    expect(result.failure).toBe('connection_retryable');
    expect(result.tries).toHaveLength(1);
    expect(result.failureDetail).toMatch(
      /^connection lost after the response headers .*not retried, the completion may have been billed$/,
    );
    expect(await ledger.state()).toMatchObject({ retainedUsd: RESERVATION });
  });

  it('a caller abort keeps the reservation and is reported, not thrown', async () => {
    const { model, ledger } = await setup(script({ kind: 'hang' }));
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const result = conforming(
      await model.generate(request('req-1', { signal: controller.signal })),
    );
    expect(result.failure).toBe('timeout');
    expect(result.failureDetail).toBe('aborted by the caller before the response headers');
    expect(await ledger.state()).toMatchObject({ retainedUsd: RESERVATION });
  });

  it.each([
    [400, 'http_fatal'],
    [401, 'http_fatal'],
    [402, 'http_fatal'],
    [403, 'http_fatal'],
    [404, 'no_route'],
    [408, 'http_fatal'],
  ] as const)('HTTP %i fails at once as %s', async (status, failure) => {
    const { model, ledger, waits } = await setup(
      script({ kind: 'status', status, retryAfter: '1' }),
    );
    const result = conforming(await model.generate(request()));
    expect(result.failure).toBe(failure);
    expect(result.tries).toHaveLength(1);
    expect(waits).toEqual([]);
    // 408 is not proof that no inference ran: its reservation is kept. The others are settled at 0.
    expect((await ledger.state()).retainedUsd).toBe(status === 408 ? RESERVATION : 0);
  });

  it('a 200 whose body is an error is an invalid response, not retried, and keeps its reservation', async () => {
    const { model, ledger } = await setup(script({ kind: 'error_in_200' }, { kind: 'ok' }));
    const result = conforming(await model.generate(request()));
    expect(result.failure).toBe('invalid_response');
    expect(result.failureDetail).toBe(
      'error delivered with HTTP 200: 502 upstream provider failed mid-request',
    );
    expect(result.tries).toHaveLength(1);
    expect(await ledger.state()).toMatchObject({ retainedUsd: RESERVATION });
  });

  it('a 200 error that reports its cost is settled at that cost', async () => {
    const { model, ledger } = await setup(script({ kind: 'error_in_200', costUsd: 0 }));
    expect((await model.generate(request())).failure).toBe('invalid_response');
    expect(await ledger.state()).toMatchObject({
      retainedUsd: 0,
      settledUsd: 0,
      openReservations: 0,
    });
  });

  it('finish_reason "error" is an invalid response', async () => {
    const { model } = await setup(script({ kind: 'finish_error' }));
    const result = conforming(await model.generate(request()));
    expect(result.failure).toBe('invalid_response');
    expect(result.failureDetail).toBe('finish_reason "error": 502 provider error');
    expect(result.tries).toHaveLength(1);
  });

  it('malformed JSON is an invalid response; the header generation ID recovers its cost', async () => {
    const { model, ledger } = await setup({
      ...script({ kind: 'malformed', generationId: 'gen-m' }),
      generations: { 'gen-m': { totalCostUsd: 0.00007 } },
    });
    const result = conforming(await model.generate(request()));
    expect(result).toMatchObject({
      failure: 'invalid_response',
      generationId: 'gen-m',
      redactedResponse: null,
      chargedUsd: 0.00007,
    });
    expect(result.failureDetail).toBe('response body is not valid JSON (36 bytes)');
    expect(await ledger.state()).toMatchObject({ settledUsd: 0.00007, retainedUsd: 0 });
  });

  it('a reply cut at the output cap is truncated and keeps its partial text', async () => {
    const { model } = await setup(
      script({
        kind: 'ok',
        content: '{"answers": [',
        finishReason: 'length',
        completionTokens: 100,
      }),
    );
    const result = conforming(await model.generate(request()));
    expect(result).toMatchObject({
      failure: 'truncated',
      truncated: true,
      text: '{"answers": [',
      finishReason: 'length',
    });
    expect(result.failureDetail).toBe(
      'finish_reason "length": the output cap of 100 tokens was reached',
    );
  });

  it('reasoning that uses the whole cap leaves a truncated reply without text', async () => {
    const { model } = await setup(
      script({ kind: 'ok', content: '', finishReason: 'length', completionTokens: 100 }),
    );
    const result = conforming(await model.generate(request()));
    expect(result).toMatchObject({ failure: 'truncated', truncated: true, text: null });
    expect(result.failureDetail).toBe(
      'finish_reason "length": the output cap of 100 tokens was reached before any answer text (reasoning can use the whole cap)',
    );
  });

  it('an empty answer is an empty response', async () => {
    const { model } = await setup(script({ kind: 'ok', content: '  \n' }));
    const result = conforming(await model.generate(request()));
    expect(result).toMatchObject({
      failure: 'empty_response',
      text: null,
      failureDetail: 'the answer has no text content',
    });
  });
});

describe('settlement without usage.cost', () => {
  it('looks the generation up, retrying its 404 until the cost appears', async () => {
    const { model, ledger, waits } = await setup(
      {
        ...script({ kind: 'ok', noUsage: true }),
        generations: { 'gen-0': { totalCostUsd: 0.00011, notFoundTimes: 2 } },
      },
      { generationLookup: { attempts: 4, intervalMs: 500 } },
    );
    const result = conforming(await model.generate(request()));
    expect(result.failure).toBe('none');
    expect(result.usage).toEqual({
      promptTokens: null,
      completionTokens: null,
      reasoningTokens: null,
      totalTokens: null,
      costUsd: null,
    });
    expect(result.chargedUsd).toBe(0.00011);
    expect(waits).toEqual([500, 500]);
    expect(
      server!.received.filter((r) => r.path.startsWith('/generation')).map((r) => r.path),
    ).toEqual(['/generation?id=gen-0', '/generation?id=gen-0', '/generation?id=gen-0']);
    expect(
      server!.received.find((r) => r.path.startsWith('/generation'))!.headers.authorization,
    ).toBe(`Bearer ${KEY}`);
    const settle = (await ledger.entries()).find((entry) => entry.kind === 'settle');
    expect(settle).toMatchObject({ chargedUsd: 0.00011, source: 'generation.total_cost' });
  });

  it('keeps the whole reservation when the lookup never finds the generation', async () => {
    const { model, ledger } = await setup(script({ kind: 'ok', costUsd: null }), {
      generationLookup: { attempts: 3, intervalMs: 1 },
    });
    const result = conforming(await model.generate(request()));
    expect(result).toMatchObject({ failure: 'none', chargedUsd: RESERVATION });
    expect(server!.received.filter((r) => r.path.startsWith('/generation'))).toHaveLength(3);
    const retain = (await ledger.entries()).find((entry) => entry.kind === 'retain');
    expect(retain).toMatchObject({
      reservationId: 'res-1',
      reason: 'the response carries no usage.cost',
    });
  });

  it('keeps the whole reservation without asking when the lookup is off', async () => {
    const { model, ledger } = await setup(script({ kind: 'ok', noUsage: true }), {
      generationLookup: false,
    });
    await model.generate(request());
    expect(server!.received.filter((r) => r.path.startsWith('/generation'))).toHaveLength(0);
    expect(await ledger.state()).toMatchObject({ retainedUsd: RESERVATION });
  });
});

describe('budget', () => {
  it('a charge above the reservation is recorded at its amount and stops every later request', async () => {
    const { model, ledger } = await setup(script({ kind: 'ok', costUsd: 0.002 }));
    const first = conforming(await model.generate(request('req-1')));
    expect(first).toMatchObject({ failure: 'none', chargedUsd: 0.002 });
    expect(first.failureDetail).toBe(
      'charged 0.002 USD (usage.cost), above the reservation of 0.000437 USD: the ledger stopped new requests',
    );
    const state = await ledger.state();
    expect(state).toMatchObject({ settledUsd: 0.002, stopped: { kind: 'overcharge' } });
    const second = conforming(await model.generate(request('req-2')), 'req-2');
    expect(second).toMatchObject({
      failure: 'budget_refused',
      text: null,
      reservedUsd: 0,
      chargedUsd: 0,
    });
    expect(second.tries).toEqual([
      {
        tryIndex: 0,
        startedAt: expect.any(String),
        status: null,
        failure: 'budget_refused',
        detail: expect.stringMatching(
          /^budget refused: the ledger has stopped new requests \(overcharge\)/,
        ),
        waitMs: null,
        waitSource: null,
      },
    ]);
    expect(server!.received).toHaveLength(1);
  });

  it('a request that would cross the ceiling is not sent', async () => {
    const { model, ledger } = await setup({}, {}, RESERVATION - 1e-9);
    const result = conforming(await model.generate(request()));
    expect(result.failure).toBe('budget_refused');
    expect(server!.received).toHaveLength(0);
    expect((await ledger.state()).stopped).toMatchObject({ kind: 'ceiling' });
  });

  it('a refused retry ends the request as budget_refused after the logged tries', async () => {
    const { model } = await setup(script({ kind: 'status', status: 503 }), {}, 1.5 * RESERVATION);
    const result = conforming(await model.generate(request()));
    expect(result.failure).toBe('budget_refused');
    expect(result.tries.map((t) => [t.status, t.failure, t.waitMs])).toEqual([
      [503, 'http_retryable', 1000],
      [null, 'budget_refused', null],
    ]);
    expect(server!.received).toHaveLength(1);
  });

  it('reports the reservation a request will take', async () => {
    const { model } = await setup({});
    expect(model.reservationUsdFor({ messages: request().messages })).toBe(RESERVATION);
  });
});

describe('secrets', () => {
  it('scrubs a key echoed by the server and never logs it in any result, entry or detail', async () => {
    const { model, ledger } = await setup(
      script({
        kind: 'status',
        status: 401,
        body: JSON.stringify({ error: { code: 401, message: `bad key ${KEY}` } }),
      }),
    );
    const rejected = await model.generate(request());
    expect(rejected.failureDetail).toBe('HTTP 401: bad key [REDACTED]');
    const echoed = await setup(
      script({
        kind: 'ok',
        echo: `Authorization: Bearer ${KEY}`,
        model: KEY,
        provider: KEY,
        content: `key ${KEY}`,
      }),
    );
    const result = await echoed.model.generate(request());
    for (const text of [
      JSON.stringify(rejected),
      JSON.stringify(result),
      JSON.stringify(await ledger.entries()),
      JSON.stringify(await echoed.ledger.entries()),
    ]) {
      expect(text).not.toContain(KEY);
    }
    expect(JSON.stringify(result.redactedResponse)).toContain('Authorization: Bearer [REDACTED]');
  });
});

/** Every run of 8 characters of the key: none may appear anywhere a result or entry is written. */
function keyFragments(key: string): string[] {
  const fragments: string[] = [];
  for (let start = 0; start + 8 <= key.length; start++) fragments.push(key.slice(start, start + 8));
  return fragments;
}

describe('secrets cut by the error text limit', () => {
  // The detail keeps 200 characters of a non-JSON body and 300 of a JSON error message: an echo
  // placed about 215 characters in straddles both cuts when the key is scrubbed after cutting.
  for (const [label, fault] of [
    [
      'plain text',
      {
        kind: 'status',
        status: 500,
        rawBody: `${'x'.repeat(150)} Authorization: Bearer ${KEY} trailing`,
      },
    ],
    [
      'a JSON error message',
      {
        kind: 'status',
        status: 500,
        body: JSON.stringify({
          error: { code: 500, message: `${'y'.repeat(250)} Authorization: Bearer ${KEY}` },
        }),
      },
    ],
  ] as const) {
    it(`leaves no fragment of an echoed key in ${label}`, async () => {
      const { model, ledger } = await setup(script(fault), {
        maxRetries: 0,
        generationLookup: false,
      });
      const result = await model.generate(request());
      const written = JSON.stringify([result, await ledger.entries()]);
      for (const fragment of keyFragments(KEY)) expect(written).not.toContain(fragment);
      expect(result.failureDetail).toContain('HTTP 500');
    });
  }

  it('scrubs a Bearer token that is not its own key and a key the server cut short', async () => {
    const { model, ledger } = await setup(
      script({
        kind: 'status',
        status: 400,
        rawBody: `bad header Authorization: Bearer other-secret-token-42; yours began ${KEY.slice(0, 20)}`,
      }),
    );
    const result = await model.generate(request());
    const written = JSON.stringify([result, await ledger.entries()]);
    expect(result.failureDetail).toContain(`Bearer ${REDACTED_TEXT}`);
    expect(written).not.toContain('other-secret-token-42');
    for (const fragment of keyFragments(KEY)) expect(written).not.toContain(fragment);
  });
});

describe('injected fetch', () => {
  it('sends every call through the injected fetch', async () => {
    const seen: string[] = [];
    const model = createOpenRouterModel({
      model: MODEL_ID,
      providers: ['moonshotai/mxfp4'],
      apiKey: KEY,
      baseURL: 'http://openrouter.invalid/api/v1',
      ledger: createMemoryLedger({ ceilingUsd: 1 }),
      safetyPrice: PRICE,
      fetch: async (input) => {
        const request = input as Request;
        seen.push(`${request.method} ${request.url} ${request.headers.get('content-type')}`);
        return new Response(
          JSON.stringify({
            id: 'gen-f',
            model: MODEL_ID,
            choices: [{ finish_reason: 'stop', message: { content: 'hi' } }],
            usage: { cost: 0 },
          }),
          { status: 200 },
        );
      },
    });
    const result = await model.generate(request());
    expect(result).toMatchObject({
      failure: 'none',
      text: 'hi',
      generationId: 'gen-f',
      chargedUsd: 0,
    });
    expect(seen).toEqual([
      'POST http://openrouter.invalid/api/v1/chat/completions application/json',
    ]);
  });
});

describe('settings and request validation', () => {
  it('refuses settings that would send an unbudgeted or unpinned OpenRouter request', () => {
    const base = {
      model: MODEL_ID,
      providers: ['xai'],
      apiKey: KEY,
      ledger: createMemoryLedger({ ceilingUsd: 1 }),
      safetyPrice: PRICE,
    };
    const { ledger: _ledger, ...noLedger } = base;
    expect(() => createOpenRouterModel(noLedger)).toThrow(
      'ledger: expected a budget ledger in openrouter mode',
    );
    expect(() => createOpenRouterModel({ ...base, providers: [] })).toThrow(
      'providers: expected a provider allowlist',
    );
    expect(() => createOpenRouterModel({ ...base, apiKey: '' })).toThrow(
      'apiKey: expected an API key in openrouter mode',
    );
    const { safetyPrice: _price, ...noPrice } = base;
    expect(() => createOpenRouterModel(noPrice)).toThrow(
      'price: expected a catalog price, a safety price or both, found neither',
    );
    expect(() => createOpenRouterModel({ ...base, appTitle: 'CHI\r\nX-Evil: 1' })).toThrow(
      'appTitle: expected a value usable in an HTTP header (no line breaks, Latin-1 only)',
    );
    expect(() => createOpenRouterModel({ ...base, apiKey: `${KEY}\nX-Evil: 1` })).toThrow(
      'apiKey: expected a value usable in an HTTP header',
    );
    expect(() => createOpenRouterModel({ ...base, maxRetries: -1 })).toThrow(
      'maxRetries: expected an integer >= 0, found -1',
    );
    expect(() => createOpenRouterModel({ ...base, reasoningEffort: 'extreme' as never })).toThrow(
      'reasoningEffort: expected one of',
    );
    expect(() =>
      createOpenRouterModel({
        ...base,
        catalog: {
          model: MODEL_ID,
          providers: ['moonshotai'],
          maxOutputTokens: 4096,
          price: PRICE,
          endpoints: [],
        },
      }),
    ).toThrow('providers: the catalog checked [moonshotai], found [xai]');
    expect(() =>
      createOpenRouterModel({
        ...base,
        providers: ['xai'],
        maxOutputTokens: 8192,
        catalog: {
          model: MODEL_ID,
          providers: ['xai'],
          maxOutputTokens: 4096,
          price: PRICE,
          endpoints: [],
        },
      }),
    ).toThrow('maxOutputTokens: the catalog checked endpoints for a cap of 4096, found 8192');
  });

  it('rejects an invalid request before reserving anything', async () => {
    const { model, ledger } = await setup({});
    await expect(model.generate({ requestId: '', messages: [] })).rejects.toThrow(
      'requestId: expected a non-empty string',
    );
    await expect(model.generate({ requestId: 'x', messages: [] })).rejects.toThrow(
      'messages: expected at least one chat message',
    );
    await expect(
      model.generate({ requestId: 'x', messages: [{ role: 'robot', content: 'hi' }] as never }),
    ).rejects.toThrow(/messages\[0\]/);
    await expect(model.generate({ ...request(), maxOutputTokens: 0 })).rejects.toThrow(
      'maxOutputTokens: expected an integer >= 1, found 0',
    );
    expect((await ledger.entries()).length).toBe(1);
    expect(server!.received).toHaveLength(0);
  });
});
