import type { FailureClass } from '@chi/spec';
import { type CompletionReading, readCompletion } from './completion-response';
import type { Exchange } from './exchange';
import { redactResponseBody, scrubSecrets } from './redact';
import { isRetryableStatus } from './retry-policy';

/**
 * HTTP statuses of a request no model received: 404 (OpenRouter's "no endpoints found" for the
 * allowlist and parameters, or an unknown model). Never retried; recorded as `no_route`, a
 * configuration failure that makes the block incomplete.
 */
const ROUTING_FAILURE_STATUSES: readonly number[] = [404];

/**
 * HTTP statuses answered before any inference starts (bad parameters, key, credits,
 * moderation, no matching endpoint, too large, unprocessable, rate limited): settled at 0 USD.
 * Every other non-2xx status keeps its reservation unless the generation lookup finds the cost.
 */
export const NOT_BILLED_STATUSES: readonly number[] = [400, 401, 402, 403, 404, 413, 422, 429];

/** Connection errors that prove the request never left: settled at 0 USD. Others keep the reservation. */
export const NOT_SENT_ERROR_CODES: readonly string[] = [
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
];

/** What a try costs: a known charge, or an uncertain one that keeps the reservation. */
export type Billing =
  | { readonly kind: 'settle'; readonly chargedUsd: number; readonly source: string }
  | { readonly kind: 'uncertain'; readonly reason: string; readonly generationId: string | null };

/** One try classified: its failure class, whether it is retried, and how it is billed. */
export interface TryOutcome {
  /** HTTP status, when a response came. */
  readonly status: number | null;
  /** Failure class (`none` for an answer). */
  readonly failure: FailureClass;
  /** What happened, scrubbed; null for a clean answer. */
  readonly detail: string | null;
  /** Whether the retry policy may try again. */
  readonly retryable: boolean;
  /** The Retry-After header of an HTTP error. */
  readonly retryAfter: string | null;
  /** The completion read from a 2xx body. */
  readonly reading: CompletionReading | null;
  /** The response body with secrets redacted. */
  readonly redactedResponse: unknown;
  /** The generation ID, from the header or the body. */
  readonly generationId: string | null;
  /** How the try is billed. */
  readonly billing: Billing;
}

/** What classifying a try needs to know about its request. */
export interface ClassifyContext {
  /** The model requested. */
  readonly model: string;
  /** The output cap of the request. */
  readonly cap: number;
  /** The request deadline (named in timeout details). */
  readonly deadlineMs: number;
  /** Strings scrubbed from details and bodies. */
  readonly secrets: readonly string[];
}

function errorBodyDetail(
  status: number,
  body: string,
  secrets: readonly string[],
): { detail: string; parsed: unknown } {
  let parsed: unknown = null;
  // Scrub first, then cut: a cut through an echoed key would leave a fragment the scrubber misses.
  const clean = scrubSecrets(body, secrets);
  let message = clean.trim().slice(0, 200);
  try {
    parsed = JSON.parse(clean);
    const error = (
      parsed as { error?: { message?: unknown; metadata?: { error_type?: unknown } } } | null
    )?.error;
    if (typeof error?.message === 'string') message = error.message.slice(0, 300);
    if (typeof error?.metadata?.error_type === 'string')
      message = `${message} (${error.metadata.error_type})`;
  } catch {
    parsed = null;
  }
  return {
    detail: scrubSecrets(`HTTP ${status}${message === '' ? '' : `: ${message}`}`, secrets),
    parsed,
  };
}

/**
 * A body larger than the request's output cap allows (`replyByteLimit`): a model failure, never
 * retried, with nothing of the body stored. Its charge is unknown (the usage was not read): the
 * reservation is kept unless the generation lookup finds the cost.
 */
function oversizeOutcome(
  result: Extract<Exchange, { kind: 'oversize' }>,
  context: ClassifyContext,
): TryOutcome {
  const detail = `reply too large: the response body passed ${result.limitBytes} bytes (the limit for max_tokens ${context.cap}); reading stopped after ${result.bytesRead} bytes and nothing of it was kept`;
  const generationId = result.headers.get('x-generation-id');
  return {
    status: result.status,
    failure: 'invalid_response',
    detail,
    retryable: false,
    retryAfter: null,
    reading: null,
    redactedResponse: null,
    generationId,
    billing: { kind: 'uncertain', reason: detail, generationId },
  };
}

/** A try without a whole response: timed out, aborted, or a connection that failed or broke. */
function transportFailureOutcome(
  result: Exclude<Exchange, { kind: 'response' | 'oversize' }>,
  deadlineMs: number,
): TryOutcome {
  const base = {
    status: result.status,
    retryAfter: null,
    reading: null,
    redactedResponse: null,
    generationId: result.headers?.get('x-generation-id') ?? null,
  };
  const where = result.afterHeaders ? 'while reading the body' : 'before the response headers';
  const uncertain = (detail: string, failure: FailureClass): TryOutcome => ({
    ...base,
    failure,
    detail,
    retryable: false,
    billing: { kind: 'uncertain', reason: detail, generationId: null },
  });
  if (result.kind === 'timeout')
    return uncertain(
      `timeout: no complete response within the ${deadlineMs} ms deadline (${where})`,
      'timeout',
    );
  if (result.kind === 'aborted') return uncertain(`aborted by the caller ${where}`, 'timeout');
  if (result.afterHeaders)
    return uncertain(
      `connection lost after the response headers (${result.code ?? result.message}); not retried, the completion may have been billed`,
      'connection_retryable',
    );
  const detail = `connection failed before any response: ${result.code ?? 'error'} (${result.message})`;
  const notSent = result.code !== null && NOT_SENT_ERROR_CODES.includes(result.code);
  return {
    ...base,
    failure: 'connection_retryable',
    detail,
    retryable: true,
    billing: notSent
      ? { kind: 'settle', chargedUsd: 0, source: `not_sent:${result.code}` }
      : { kind: 'uncertain', reason: detail, generationId: null },
  };
}

/** A 2xx response: the completion read from its body, billed by `usage.cost` when it has one. */
function completionOutcome(
  result: Extract<Exchange, { kind: 'response' }>,
  context: ClassifyContext,
): TryOutcome {
  const reading = readCompletion(result.body, {
    requestedModel: context.model,
    maxOutputTokens: context.cap,
    generationIdHeader: result.headers.get('x-generation-id'),
  });
  const cost = reading.usage.costUsd;
  return {
    status: result.status,
    failure: reading.failure,
    detail: reading.detail === null ? null : scrubSecrets(reading.detail, context.secrets),
    retryable: false,
    retryAfter: null,
    reading,
    redactedResponse:
      reading.body === undefined ? null : redactResponseBody(reading.body, context.secrets),
    generationId: reading.generationId,
    billing:
      cost !== null
        ? { kind: 'settle', chargedUsd: cost, source: 'usage.cost' }
        : {
            kind: 'uncertain',
            reason: 'the response carries no usage.cost',
            generationId: reading.generationId,
          },
  };
}

/** A non-2xx response: retryable (429/5xx), a routing failure (404) or fatal. */
function httpErrorOutcome(
  result: Extract<Exchange, { kind: 'response' }>,
  secrets: readonly string[],
): TryOutcome {
  const { detail, parsed } = errorBodyDetail(result.status, result.body, secrets);
  const retryable = isRetryableStatus(result.status);
  const bodyId = (parsed as { id?: unknown } | null)?.id;
  const generationId =
    result.headers.get('x-generation-id') ?? (typeof bodyId === 'string' ? bodyId : null);
  return {
    status: result.status,
    failure: retryable
      ? 'http_retryable'
      : ROUTING_FAILURE_STATUSES.includes(result.status)
        ? 'no_route'
        : 'http_fatal',
    detail,
    retryable,
    retryAfter: result.headers.get('retry-after'),
    reading: null,
    redactedResponse: parsed === null ? null : redactResponseBody(parsed, secrets),
    generationId,
    billing: NOT_BILLED_STATUSES.includes(result.status)
      ? { kind: 'settle', chargedUsd: 0, source: `not_billed:http_${result.status}` }
      : {
          kind: 'uncertain',
          reason: `${detail}: whether it was billed is unknown`,
          generationId,
        },
  };
}

/** Classifies what one try brought back. Pure. */
export function classifyExchange(result: Exchange, context: ClassifyContext): TryOutcome {
  if (result.kind === 'oversize') return oversizeOutcome(result, context);
  if (result.kind !== 'response') return transportFailureOutcome(result, context.deadlineMs);
  if (result.status >= 200 && result.status <= 299) return completionOutcome(result, context);
  return httpErrorOutcome(result, context.secrets);
}
