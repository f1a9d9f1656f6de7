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
      /** The body grew past the reply limit: reading stopped there, nothing of it is kept. */
      readonly kind: 'oversize';
      readonly status: number;
      readonly headers: Headers;
      /** Bytes read before reading stopped (at most one chunk past the limit), or the declared length. */
      readonly bytesRead: number;
      readonly limitBytes: number;
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

/** A body read up to a limit: its text, or how far it got when it passed the limit. */
type BoundedBody = { readonly text: string } | { readonly oversize: number };

/**
 * Reads a response body chunk by chunk and stops (cancelling the stream, which closes the
 * connection) as soon as it passes `limitBytes`: memory holds at most the limit and one chunk.
 * A `content-length` above the limit stops it before the first byte.
 */
async function readBoundedBody(response: Response, limitBytes: number): Promise<BoundedBody> {
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > limitBytes) {
    await response.body?.cancel().catch(() => {});
    return { oversize: declared };
  }
  const reader = response.body?.getReader();
  if (reader === undefined) return { text: '' };
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.byteLength;
    if (bytes > limitBytes) {
      await reader.cancel().catch(() => {});
      return { oversize: bytes };
    }
    chunks.push(value);
  }
  return { text: Buffer.concat(chunks, bytes).toString('utf8') };
}

/**
 * One try: posts `body` and reads the response, at most `limitBytes` of it (`replyByteLimit`),
 * within the try's deadline, which holds its own timer and which the body read races (see
 * {@link tryDeadline}). Never rejects.
 */
export async function exchange(
  context: ExchangeContext,
  body: string,
  callerSignal: AbortSignal | undefined,
  timeLeftMs: number,
  limitBytes: number = Number.POSITIVE_INFINITY,
  headers: Readonly<Record<string, string>> = {},
): Promise<Exchange> {
  // One deadline per request: a try gets what is left of it (all of it on the first try).
  const deadline = tryDeadline(Math.max(1, Math.min(context.deadlineMs, timeLeftMs)), callerSignal);
  let response: Response | null = null;
  try {
    response = await context.http.post('chat/completions', {
      body,
      headers,
      signal: deadline.signal,
    });
    const read = await untilAborted(readBoundedBody(response, limitBytes), deadline.signal);
    if ('oversize' in read)
      return {
        kind: 'oversize',
        status: response.status,
        headers: response.headers,
        bytesRead: read.oversize,
        limitBytes,
      };
    const text = read.text;
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
