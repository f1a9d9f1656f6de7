import { describe, expect, it } from 'vitest';
import type { ChatModel, ChatRequest, ChatResult } from './chat-model';
import { checkChatModelContract, checkChatResult } from './contract';
import { InvalidArgumentError } from './errors';

const AT = '2026-09-01T10:00:00.000Z';

function resultFor(request: ChatRequest, overrides: Partial<ChatResult> = {}): ChatResult {
  return {
    requestId: request.requestId,
    evidenceClass: 'scripted_baseline',
    text: 'OK',
    failure: 'none',
    failureDetail: null,
    finishReason: 'stop',
    truncated: false,
    requestedModel: 'scripted/echo',
    returnedModel: null,
    returnedProvider: null,
    generationId: null,
    usage: {
      promptTokens: null,
      completionTokens: null,
      reasoningTokens: null,
      totalTokens: null,
      costUsd: null,
    },
    startedAt: AT,
    finishedAt: AT,
    latencyMs: 0,
    tries: [],
    reservedUsd: 0,
    chargedUsd: 0,
    redactedResponse: null,
    ...overrides,
  };
}

/** A minimal conforming model: answers OK, reports cancellation as a failure, rejects bad input. */
function scriptedModel(
  tamper: (request: ChatRequest, result: ChatResult) => ChatResult = (_, r) => r,
): ChatModel {
  return {
    specificationVersion: 'chi-chat-v1',
    provider: 'scripted',
    modelId: 'scripted/echo',
    evidenceClass: 'scripted_baseline',
    async generate(request) {
      if (request.messages.length === 0)
        throw new InvalidArgumentError('messages', 'expected at least one message, found none');
      if (request.signal?.aborted === true) {
        return tamper(
          request,
          resultFor(request, {
            text: null,
            failure: 'timeout',
            failureDetail: 'aborted by the caller',
          }),
        );
      }
      return tamper(request, resultFor(request));
    },
  };
}

describe('checkChatModelContract', () => {
  it('finds no problem in a conforming model', async () => {
    expect(await checkChatModelContract(scriptedModel())).toEqual([]);
  });

  it('reports a model that rejects instead of resolving a cancelled request', async () => {
    const model = scriptedModel();
    const rejecting: ChatModel = {
      ...model,
      generate: async (request) => {
        if (request.signal?.aborted === true) throw new Error('AbortError');
        return model.generate(request);
      },
    };
    expect(await checkChatModelContract(rejecting)).toEqual([
      'generate rejected a cancelled request (it must resolve with failure set): Error: AbortError',
    ]);
  });

  it('reports a model that ignores cancellation and one that accepts an empty request', async () => {
    const model = scriptedModel();
    const careless: ChatModel = { ...model, generate: async (request) => resultFor(request) };
    expect(await checkChatModelContract(careless)).toEqual([
      'a request whose signal was already aborted resolved without failure',
      'generate resolved a request with no messages; an invalid request must reject',
    ]);
  });

  it('reports a wrong version marker and a failing normal request unless failures are expected', async () => {
    const failing = scriptedModel((request, result) =>
      request.signal === undefined
        ? { ...result, text: null, failure: 'http_fatal', failureDetail: 'HTTP 401' }
        : result,
    );
    const wrongVersion = { ...failing, specificationVersion: 'v0' } as unknown as ChatModel;
    expect(await checkChatModelContract(wrongVersion)).toEqual([
      'specificationVersion is "v0", expected "chi-chat-v1"',
      'normal request failed with http_fatal: HTTP 401',
    ]);
    expect(await checkChatModelContract(failing, { expectSuccess: false })).toEqual([]);
  });
});

describe('checkChatResult', () => {
  const request: ChatRequest = { requestId: 'r-1', messages: [{ role: 'user', content: 'hi' }] };
  const model = { modelId: 'scripted/echo', evidenceClass: 'scripted_baseline' as const };

  it('names each broken rule', () => {
    const result = resultFor(request, {
      requestId: 'r-2',
      requestedModel: 'other/model',
      evidenceClass: 'live_model',
      text: '',
      finishedAt: '2026-09-01T09:59:59.000Z',
      tries: [
        {
          tryIndex: 0,
          startedAt: AT,
          status: 503,
          failure: 'http_retryable',
          detail: null,
          waitMs: null,
          waitSource: null,
        },
        {
          tryIndex: 2,
          startedAt: AT,
          status: 200,
          failure: 'none',
          detail: null,
          waitMs: 5,
          waitSource: null,
        },
      ],
      redactedResponse: {
        choices: [{ message: { content: 'OK', reasoning: 'secret chain of thought' } }],
        usage: { completion_tokens_details: { reasoning_tokens: 12 } },
      },
    });
    expect(checkChatResult(result, { model, request })).toEqual([
      'requestId is "r-2", expected "r-1"',
      'requestedModel is "other/model", expected the model\'s modelId "scripted/echo"',
      "evidenceClass is live_model, expected the model's scripted_baseline",
      'failure is none but text is empty: an answer without text must be an empty_response failure',
      'finishedAt 2026-09-01T09:59:59.000Z is before startedAt 2026-09-01T10:00:00.000Z',
      'tries[0] is followed by another try but logs no wait',
      'tries[1].tryIndex is 2, expected 1',
      'tries[1] has waitMs 5 but waitSource null: both or neither',
      'tries[1] is the last try but logs a wait before a next try',
      'redactedResponse keeps hidden reasoning at choices[0].message.reasoning',
    ]);
  });

  it('reports schema violations with their path', () => {
    const broken = { ...resultFor(request), latencyMs: -1 };
    expect(checkChatResult(broken, { model, request })).toEqual([
      expect.stringMatching(/^result does not match ChatResultSchema at latencyMs: /),
    ]);
  });

  it('requires the truncated flag on a truncated failure', () => {
    const result = resultFor(request, { failure: 'truncated', truncated: false });
    expect(checkChatResult(result, { model, request })).toEqual([
      'failure is truncated but the truncated flag is false',
    ]);
  });
});
