import { describe, expect, it } from 'vitest';
import {
  DEFAULT_BACKOFF_MS,
  isRetryableStatus,
  parseRetryAfterMs,
  planRetry,
} from './retry-policy';

const NOW = Date.parse('2026-10-21T07:27:30.000Z');

describe('isRetryableStatus', () => {
  it('retries 429 and 5xx only', () => {
    expect([429, 500, 502, 503, 524, 529, 599].every(isRetryableStatus)).toBe(true);
    expect([200, 400, 401, 402, 403, 404, 408, 409, 413, 422, 600].some(isRetryableStatus)).toBe(
      false,
    );
  });
});

describe('parseRetryAfterMs', () => {
  it('reads delay-seconds, fractional seconds and HTTP dates', () => {
    expect(parseRetryAfterMs('3', NOW)).toBe(3000);
    expect(parseRetryAfterMs(' 0 ', NOW)).toBe(0);
    expect(parseRetryAfterMs('1.5', NOW)).toBe(1500);
    expect(parseRetryAfterMs('Wed, 21 Oct 2026 07:28:00 GMT', NOW)).toBe(30_000);
    expect(parseRetryAfterMs('Wed, 21 Oct 2026 07:00:00 GMT', NOW)).toBe(0);
  });

  it('ignores absent and unparseable values instead of guessing', () => {
    expect(parseRetryAfterMs(null, NOW)).toBeNull();
    expect(parseRetryAfterMs('', NOW)).toBeNull();
    expect(parseRetryAfterMs('-1', NOW)).toBeNull();
    expect(parseRetryAfterMs('soon', NOW)).toBeNull();
    expect(parseRetryAfterMs('2026-10-21', NOW)).toBeNull();
  });
});

describe('planRetry', () => {
  const base = {
    maxRetries: 2,
    retryAfter: null,
    retryAfterCapMs: 30_000,
    backoffMs: DEFAULT_BACKOFF_MS,
    nowMs: NOW,
  };

  it('follows the backoff schedule without Retry-After', () => {
    expect(planRetry({ ...base, tryIndex: 0 })).toEqual({
      retry: true,
      waitMs: 1000,
      source: 'backoff',
    });
    expect(planRetry({ ...base, tryIndex: 1 })).toEqual({
      retry: true,
      waitMs: 4000,
      source: 'backoff',
    });
    expect(planRetry({ ...base, tryIndex: 1, maxRetries: 3, backoffMs: [5] })).toEqual({
      retry: true,
      waitMs: 5,
      source: 'backoff',
    });
  });

  it('stops after the allowed retries', () => {
    expect(planRetry({ ...base, tryIndex: 2 })).toEqual({
      retry: false,
      reason: 'no retries left (2 allowed)',
    });
    expect(planRetry({ ...base, tryIndex: 0, maxRetries: 0 })).toEqual({
      retry: false,
      reason: 'no retries left (0 allowed)',
    });
  });

  it('honors Retry-After within the cap and refuses to shorten a longer one', () => {
    expect(planRetry({ ...base, tryIndex: 0, retryAfter: '7' })).toEqual({
      retry: true,
      waitMs: 7000,
      source: 'retry_after',
    });
    expect(planRetry({ ...base, tryIndex: 0, retryAfter: '30' })).toEqual({
      retry: true,
      waitMs: 30_000,
      source: 'retry_after',
    });
    expect(planRetry({ ...base, tryIndex: 0, retryAfter: '31' })).toEqual({
      retry: false,
      reason: 'Retry-After asks for 31000 ms, above the cap of 30000 ms: not retried',
    });
  });
});
