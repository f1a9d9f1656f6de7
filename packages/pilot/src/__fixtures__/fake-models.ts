import type { ChatModel, ChatRequest, ChatResult, EvidenceClass, SystemSpec } from '@chi/spec';
import { createScriptedModel } from '../scripted/scripted-systems';

/** Wraps a scripted system so a test can change chosen results or throw (simulate a crash). */
export function scriptedWith(
  name: string,
  override: (request: ChatRequest, result: ChatResult) => ChatResult | 'throw',
  options: { evidenceClass?: EvidenceClass; calls?: string[] } = {},
): ChatModel {
  const inner = createScriptedModel(name);
  return {
    ...inner,
    evidenceClass: options.evidenceClass ?? inner.evidenceClass,
    async generate(request) {
      options.calls?.push(request.requestId);
      const result = await inner.generate(request);
      const changed = override(request, { ...result, evidenceClass: options.evidenceClass ?? result.evidenceClass });
      if (changed === 'throw') throw new Error(`simulated crash while ${request.requestId} was in flight`);
      return changed;
    },
  };
}

/** A result turned into a failure of the given class (text dropped unless kept). */
export function failed(result: ChatResult, failure: ChatResult['failure'], keepText = false): ChatResult {
  return { ...result, failure, failureDetail: `simulated ${failure}`, text: keepText ? result.text : null };
}

/** A manifest entry for a pretend paid endpoint (openai-compatible, live evidence class). */
export function paidSystemSpec(id: string): SystemSpec {
  return {
    id,
    kind: 'openai-compatible',
    model: `paid/${id}`,
    providers: [],
    baseUrl: 'http://127.0.0.1:9/v1',
    evidenceClass: 'live_model',
    reasoningEffort: null,
    maxOutputTokens: 4096,
    safetyPrice: { inputUsdPerToken: 0, outputUsdPerToken: 0, requestUsd: 0 },
  };
}
