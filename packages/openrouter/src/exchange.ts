import type { KyInstance } from 'ky';
import { scrubSecrets } from './redact';
import { tryDeadline, untilAborted } from './try-deadline';

/** What one try brought back: a whole response, or how it failed and how far it got. */
export type Exchange =
  | {
      readonly kind: 'response';
      readonly status: number;
      readonly headers: Headers;
      readonly body: string;
    }
  | {
      readonly kind: 'timeout' | 'aborted' | 'connection';
      readonly afterHeaders: boolean;
      readonly status: number | null;
      readonly headers: Headers | null;
      readonly code: string | null;
      readonly message: string;
    };

function errorCode(error: unknown): string | null {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return null;
}

function errorMessage(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 3 && current instanceof Error; depth++) {
    parts.push(current.message);
    current = current.cause;
  }
  return parts.length === 0 ? String(error) : parts.join(': ');
}

/** What one try needs from its transport. */
export interface ExchangeContext {
  /** The transport's HTTP client. */
  readonly http: KyInstance;
  /** The request deadline (a try never gets more). */
  readonly deadlineMs: number;
  /** Strings scrubbed from the body and error messages. */
  readonly secrets: readonly string[];
}

/**
 * One try: posts `body` and reads the whole response within the try's deadline, which holds its
 * own timer and which the body read races (see {@link tryDeadline}). Never rejects.
 */
export async function exchange(
  context: ExchangeContext,
  body: string,
  callerSignal: AbortSignal | undefined,
  timeLeftMs: number,
): Promise<Exchange> {
  // One deadline per request: a try gets what is left of it (all of it on the first try).
  const deadline = tryDeadline(Math.max(1, Math.min(context.deadlineMs, timeLeftMs)), callerSignal);
  let response: Response | null = null;
  try {
    response = await context.http.post('chat/completions', { body, signal: deadline.signal });
    const text = await untilAborted(response.text(), deadline.signal);
    return {
      kind: 'response',
      status: response.status,
      headers: response.headers,
      // Scrubbed before anything reads or cuts it (an echoed key never reaches a record).
      body: scrubSecrets(text, context.secrets),
    };
  } catch (error) {
    const kind = deadline.timedOut()
      ? 'timeout'
      : callerSignal?.aborted === true
        ? 'aborted'
        : 'connection';
    return {
      kind,
      afterHeaders: response !== null,
      status: response?.status ?? null,
      headers: response?.headers ?? null,
      code: errorCode(error),
      message: scrubSecrets(errorMessage(error), context.secrets),
    };
  } finally {
    deadline.dispose();
  }
}
