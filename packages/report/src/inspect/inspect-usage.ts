import type { ChatResult } from '@chi/spec';
import type { JsonObject } from './json';

/** The sum of one usage field over results, or null when any result does not know it. */
function knownSum(values: readonly (number | null)[]): number | null {
  let sum = 0;
  for (const value of values) {
    if (value === null) return null;
    sum += value;
  }
  return sum;
}

/**
 * Inspect's `ModelUsage` of some results, or null when it is not known. Inspect's model has
 * input, output and total tokens (its schema lists them as required and a reader fills 0 for a
 * missing one), so a usage is written only when every result reports all three; otherwise the
 * caller leaves the whole usage out rather than write a 0 nobody measured. `reasoning_tokens`
 * is present when every result reports it; `total_cost` is what the results were charged
 * (always known to the toolkit).
 */
export function inspectUsage(results: readonly ChatResult[]): JsonObject | null {
  const input = knownSum(results.map((r) => r.usage.promptTokens));
  const output = knownSum(results.map((r) => r.usage.completionTokens));
  const total = knownSum(
    results.map(
      (r) =>
        r.usage.totalTokens ??
        (r.usage.promptTokens === null || r.usage.completionTokens === null
          ? null
          : r.usage.promptTokens + r.usage.completionTokens),
    ),
  );
  const reasoning = knownSum(results.map((r) => r.usage.reasoningTokens));
  if (input === null || output === null || total === null) return null;
  return {
    input_tokens: input,
    output_tokens: output,
    total_tokens: total,
    ...(reasoning === null ? {} : { reasoning_tokens: reasoning }),
    total_cost: results.reduce((sum, r) => sum + r.chargedUsd, 0),
  };
}

/** `{ [model]: usage }` when the usage is known, else `{}` (Inspect's `model_usage`). */
export function modelUsage(model: string, results: readonly ChatResult[]): JsonObject {
  const usage = inspectUsage(results);
  return usage === null ? {} : { [model]: usage };
}
