import type { ChatModel, ChatRequest, ChatResult } from '@chi/spec';

/** A model that answers every request `ok` (the fixture's task has no scripted reply). */
export function okModel(id: string): ChatModel {
  const at = '2026-09-01T00:00:00.000Z';
  return {
    specificationVersion: 'chi-chat-v1',
    provider: 'scripted',
    modelId: `test/${id}`,
    evidenceClass: 'scripted_baseline',
    async generate(request: ChatRequest): Promise<ChatResult> {
      return {
        requestId: request.requestId,
        evidenceClass: 'scripted_baseline',
        text: 'ok',
        failure: 'none',
        failureDetail: null,
        finishReason: 'stop',
        truncated: false,
        requestedModel: `test/${id}`,
        returnedModel: `test/${id}`,
        returnedProvider: 'scripted',
        generationId: null,
        usage: {
          promptTokens: null,
          completionTokens: null,
          reasoningTokens: null,
          totalTokens: null,
          costUsd: 0,
        },
        startedAt: at,
        finishedAt: at,
        latencyMs: 0,
        tries: [
          {
            tryIndex: 0,
            startedAt: at,
            status: null,
            failure: 'none',
            detail: null,
            waitMs: null,
            waitSource: null,
          },
        ],
        reservedUsd: 0,
        chargedUsd: 0,
        redactedResponse: null,
      };
    },
  };
}

