const HIDDEN_REASONING_KEY = /reasoning|thinking/i;

/** What a secret is replaced with. */
export const REDACTED = '[REDACTED]';

/** Shortest run of a secret's characters treated as a fragment of it. */
export const MIN_SECRET_FRAGMENT = 8;

/** `Bearer <token>`: the token is any run of characters a header token or JSON string can hold unescaped. */
const BEARER_TOKEN = /\b(Bearer)\s+[A-Za-z0-9._~+/=:-]+/gi;

/** Every window of `MIN_SECRET_FRAGMENT` characters of a secret. */
function fragmentWindows(secret: string): Set<string> {
  const windows = new Set<string>();
  for (let start = 0; start + MIN_SECRET_FRAGMENT <= secret.length; start++)
    windows.add(secret.slice(start, start + MIN_SECRET_FRAGMENT));
  return windows;
}

/** Replaces every run of 8 or more characters that also occurs in `secret` (a fragment of it). */
function scrubFragments(text: string, secret: string): string {
  const windows = fragmentWindows(secret);
  let out = '';
  let index = 0;
  while (index < text.length) {
    if (!windows.has(text.slice(index, index + MIN_SECRET_FRAGMENT))) {
      out += text[index];
      index += 1;
      continue;
    }
    let end = index + MIN_SECRET_FRAGMENT;
    while (end < text.length && secret.includes(text.slice(index, end + 1))) end += 1;
    out += REDACTED;
    index = end;
  }
  return out;
}

/**
 * Replaces every occurrence of each secret in `text` with `[REDACTED]`, and also every fragment of
 * it (any run of 8 or more characters that occurs in the secret, e.g. a key a server cut short)
 * and the token of every `Bearer <token>` (a credential echoed back, whoever it belongs to).
 * Secrets shorter than 8 characters (placeholders such as `EMPTY` for local servers) are not
 * secrets and are left alone.
 *
 * Scrub before cutting text to a length: a cut can leave a fragment that no longer matches the
 * whole key (this function then still catches it when it is 8 characters or longer).
 */
export function scrubSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length < MIN_SECRET_FRAGMENT) continue;
    out = scrubFragments(out.split(secret).join(REDACTED), secret);
  }
  return out.replace(BEARER_TOKEN, `$1 ${REDACTED}`);
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
