import { type ChatInstance, InvalidArgumentError } from '@chi/spec';

/** The HTTP header naming a request's memory instance (memory policy `system`). */
export const INSTANCE_HEADER = 'x-chi-instance';
/** The HTTP header naming a request's session within its instance (memory policy `system`). */
export const SESSION_HEADER = 'x-chi-session';

/** Printable ASCII without spaces: safe in any HTTP header value and in a log line. */
const HEADER_VALUE = /^[\x21-\x7e]{1,512}$/;

/**
 * The headers that carry a request's memory instance over HTTP: `X-Chi-Instance` and
 * `X-Chi-Session`, none without an instance. Headers, not body fields: the request body (and with
 * it the stored request and its hash) stays byte-identical, and an OpenAI-compatible server that
 * does not know them ignores them, where some reject an unknown body field (OpenAI's own
 * `metadata` belongs to stored completions).
 *
 * @example
 * ```ts
 * instanceHeaders({ instanceId: 'chi-3f2a9c0b1d4e/window/memory.w1.n32', sessionId: 'window.memory.w1.n32.encode' });
 * // { 'x-chi-instance': 'chi-3f2a...', 'x-chi-session': 'window.memory.w1.n32.encode' }
 * ```
 */
export function instanceHeaders(instance: ChatInstance | undefined): Record<string, string> {
  if (instance === undefined) return {};
  for (const [field, value] of [
    ['instanceId', instance.instanceId],
    ['sessionId', instance.sessionId],
  ] as const) {
    if (!HEADER_VALUE.test(value))
      throw new InvalidArgumentError(
        `instance.${field}`,
        `expected 1-512 printable ASCII characters without spaces, found ${JSON.stringify(value)}`,
      );
  }
  return { [INSTANCE_HEADER]: instance.instanceId, [SESSION_HEADER]: instance.sessionId };
}

/** The instance a served request names in its headers, or undefined when it names none. */
export function instanceFromHeaders(
  headers: Readonly<Record<string, string | string[] | undefined>>,
): ChatInstance | undefined {
  const first = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);
  const instanceId = first(headers[INSTANCE_HEADER]);
  if (instanceId === undefined || instanceId === '') return undefined;
  return { instanceId, sessionId: first(headers[SESSION_HEADER]) ?? '' };
}
