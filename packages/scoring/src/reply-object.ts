/**
 * The JSON value of a reply to one of the opt-in environments (goal persistence, feedback
 * valence): the whole text, or the text inside a Markdown code fence, or the span from the first
 * `{`/`[` to the last `}`/`]`. Null when none of them parses. Never throws on model output.
 *
 * @example
 * ```ts
 * replyJson('Sure: {"action": "stop"}'); // { action: 'stop' }
 * replyJson('no json'); // null
 * ```
 */
export function replyJson(text: string | null): unknown {
  if (text === null) return null;
  const fenced = /```(?:json)?\s*([\s\S]*?)```/.exec(text)?.[1];
  for (const candidate of [text, fenced, span(text, '{', '}'), span(text, '[', ']')]) {
    if (candidate === undefined || candidate === null) continue;
    try {
      return JSON.parse(candidate) as unknown;
    } catch {
      // try the next reading
    }
  }
  return null;
}

function span(text: string, open: string, close: string): string | null {
  const start = text.indexOf(open);
  const end = text.lastIndexOf(close);
  return start === -1 || end <= start ? null : text.slice(start, end + 1);
}

/** `value` as a plain object, or null. */
export function asRecord(value: unknown): Record<string, unknown> | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null;
}
