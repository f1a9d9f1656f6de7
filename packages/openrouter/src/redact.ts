const HIDDEN_REASONING_KEY = /reasoning|thinking/i;

/** What a secret is replaced with. */
export const REDACTED = '[REDACTED]';

/**
 * Replaces every occurrence of each secret in `text` with `[REDACTED]`. Secrets shorter than 8
 * characters (placeholders such as `EMPTY` for local servers) are not secrets and are left alone.
 */
export function scrubSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (secret.length >= 8) out = out.split(secret).join(REDACTED);
  return out;
}

/**
 * A copy of a response body that is safe to log and publish: hidden reasoning removed (every key
 * whose name contains `reasoning` or `thinking` and whose value is not a number, so
 * `message.reasoning`, `reasoning_details` and `reasoning_content` go while the usage count
 * `reasoning_tokens` stays) and every secret replaced by `[REDACTED]` in keys and strings.
 *
 * @example
 * ```ts
 * redactResponseBody({ choices: [{ message: { content: 'hi', reasoning: '...' } }] }, [apiKey]);
 * // { choices: [{ message: { content: 'hi' } }] }
 * ```
 */
export function redactResponseBody(value: unknown, secrets: readonly string[]): unknown {
  if (typeof value === 'string') return scrubSecrets(value, secrets);
  if (Array.isArray(value)) return value.map((item) => redactResponseBody(item, secrets));
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    if (HIDDEN_REASONING_KEY.test(key) && typeof child !== 'number') continue;
    out[scrubSecrets(key, secrets)] = redactResponseBody(child, secrets);
  }
  return out;
}
