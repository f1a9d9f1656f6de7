import { extractJsonBlock } from '@chi/experiment';
/**
 * Two SCRIPTED responders standing in for a model (not models): each reads the QUESTIONS block of
 * the prompt and applies a fixed rule, so their scores are known in advance.
 * - `exact`: answers every item correctly (accuracy 1).
 * - `off-by-one`: adds 1 to the answer of every second item (q2, q4, ...): accuracy 1/2.
 */
import type { ChatModel, ChatRequest, ChatResult, SystemSpec } from '@chi/spec';

export const RESPONDERS = ['exact', 'off-by-one'] as const;
export type Responder = (typeof RESPONDERS)[number];

interface Question {
  readonly id: string;
  readonly a: number;
  readonly b: number;
}

/** The reply text of a responder to one prompt. */
export function scriptedSumReply(responder: Responder, prompt: string): string {
  const questions = extractJsonBlock(prompt, 'QUESTIONS') as Question[];
  return JSON.stringify(
    questions.map((q, index) => ({
      id: q.id,
      answer: ((q.a + q.b) % 97) + (responder === 'off-by-one' && index % 2 === 1 ? 1 : 0),
    })),
  );
}

/** The manifest entry of a responder: a scripted baseline, labelled as such. */
export function responderSpec(responder: Responder): SystemSpec {
  return {
    id: responder,
    kind: 'scripted',
    model: `example/${responder}`,
    providers: [],
    baseUrl: null,
    evidenceClass: 'scripted_baseline',
    reasoningEffort: null,
    maxOutputTokens: 256,
    safetyPrice: null,
    apiKeyEnv: null,
    scripted: {
      seed: 1,
      declaredNoise: {},
      description: `Example responder ${responder}: a fixed rule, not a model.`,
    },
  };
}

/** A responder behind the `ChatModel` interface: free, deterministic, `scripted_baseline`. */
export function responderModel(responder: Responder): ChatModel {
  return {
    specificationVersion: 'chi-chat-v1',
    provider: 'scripted',
    modelId: `example/${responder}`,
    evidenceClass: 'scripted_baseline',
    async generate(request: ChatRequest): Promise<ChatResult> {
      const prompt = request.messages.at(-1)?.content ?? '';
      const text = scriptedSumReply(responder, prompt);
      const at = new Date('2026-09-01T00:00:00.000Z').toISOString();
      const modelId = `example/${responder}`;
      return {
        requestId: request.requestId,
        evidenceClass: 'scripted_baseline',
        text,
        failure: 'none',
        failureDetail: null,
        finishReason: 'stop',
        truncated: false,
        requestedModel: modelId,
        returnedModel: modelId,
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
