/**
 * HTTP statuses that may be retried: rate limiting (429) and every server error (5xx, which
 * includes OpenRouter's 502 provider error, 503 no provider, 524 edge timeout, 529 overloaded).
 * Nothing else is retried: not 408, not any other 4xx, not a timeout, not an error inside a 200.
 */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || (status >= 500 && status <= 599);
}

/**
 * Parses a `Retry-After` header into milliseconds from `nowMs`: either delay-seconds (`"7"`,
 * `"1.5"`) or an HTTP date. Returns null when absent or unparseable; a date in the past is 0.
 *
 * @example
 * ```ts
 * parseRetryAfterMs('3', Date.now()); // 3000
 * parseRetryAfterMs('Wed, 21 Oct 2026 07:28:00 GMT', Date.parse('2026-10-21T07:27:30Z')); // 30000
 * ```
 */
export function parseRetryAfterMs(header: string | null | undefined, nowMs: number): number | null {
  if (header == null) return null;
  const value = header.trim();
  if (value === '') return null;
  if (/^\d+(\.\d+)?$/.test(value)) return Math.ceil(Number(value) * 1000);
  // Only real HTTP dates: a bare number was handled above and anything else must name a weekday.
  if (!/^[A-Za-z]{3},/.test(value)) return null;
  const at = Date.parse(value);
  if (Number.isNaN(at)) return null;
  return Math.max(0, at - nowMs);
}

/** The documented backoff when no usable `Retry-After` is given: 1 s before the first retry, 4 s before the second. */
export const DEFAULT_BACKOFF_MS: readonly number[] = [1000, 4000];

/** How long to wait before the next try, and why; or why there is no next try. */
export type RetryWait =
  | { readonly retry: true; readonly waitMs: number; readonly source: 'retry_after' | 'backoff' }
  | { readonly retry: false; readonly reason: string };

/** Inputs of {@link planRetry}. */
export interface RetryPlanInput {
  /** Zero-based index of the try that just failed with a retryable failure. */
  readonly tryIndex: number;
  /** Retries allowed after the first try (the protocol's maximum is 2). */
  readonly maxRetries: number;
  /** The failed try's `Retry-After` header, if any. */
  readonly retryAfter: string | null;
  /** Longest `Retry-After` that is honored; a longer one ends the request instead. */
  readonly retryAfterCapMs: number;
  /** Backoff before retry k (k = tryIndex); the last value repeats. */
  readonly backoffMs: readonly number[];
  /** Current time in epoch milliseconds (for HTTP-date `Retry-After`). */
  readonly nowMs: number;
}

/**
 * Decides whether a retryable failure gets another try and how long to wait first. A
 * `Retry-After` within the cap is honored exactly; one above the cap is not shortened (that
 * would retry before the server allows it): the request ends as an infrastructure failure.
 */
export function planRetry(input: RetryPlanInput): RetryWait {
  if (input.tryIndex >= input.maxRetries) {
    return { retry: false, reason: `no retries left (${input.maxRetries} allowed)` };
  }
  const retryAfterMs = parseRetryAfterMs(input.retryAfter, input.nowMs);
  if (retryAfterMs !== null) {
    if (retryAfterMs > input.retryAfterCapMs) {
      return {
        retry: false,
        reason: `Retry-After asks for ${retryAfterMs} ms, above the cap of ${input.retryAfterCapMs} ms: not retried`,
      };
    }
    return { retry: true, waitMs: retryAfterMs, source: 'retry_after' };
  }
  const schedule = input.backoffMs.length === 0 ? DEFAULT_BACKOFF_MS : input.backoffMs;
  const waitMs = schedule[Math.min(input.tryIndex, schedule.length - 1)] ?? 0;
  return { retry: true, waitMs, source: 'backoff' };
}
