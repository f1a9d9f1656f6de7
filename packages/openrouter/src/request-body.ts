import type { ChatMessage } from '@chi/spec';
import type { ResolvedModelSettings } from './model-settings';

/**
 * The JSON body of a chat completion: `model`, `messages`, `max_tokens`, `reasoning` when an effort
 * is set, then the mode's own fields (OpenRouter's provider allowlist and plugins).
 */
export function requestBody(
  settings: Pick<ResolvedModelSettings, 'model' | 'reasoningEffort' | 'mode' | 'providers'>,
  messages: readonly ChatMessage[],
  cap: number,
): string {
  const body: Record<string, unknown> = { model: settings.model, messages, max_tokens: cap };
  if (settings.reasoningEffort !== null) body.reasoning = { effort: settings.reasoningEffort };
  Object.assign(body, settings.mode.bodyFields(settings.providers));
  return JSON.stringify(body);
}
