import { describe, expect, it } from 'vitest';
import {
  failureCategory,
  infrastructureReason,
  isAccountFailure,
  isInfrastructureFailure,
} from './failure-class';
import type { ChatResult, FailureClass } from './index';

const result = (failure: FailureClass, status: number | null = null) =>
  ({ failure, tries: [{ status }] }) as unknown as ChatResult;

describe('failure classes', () => {
  it.each([
    ['none', null, 'none'],
    ['timeout', null, 'model'],
    ['truncated', 200, 'model'],
    ['empty_response', 200, 'model'],
    ['invalid_response', 200, 'model'],
    ['http_fatal', 400, 'model'],
    ['http_fatal', 403, 'model'],
    ['http_fatal', 401, 'infrastructure'],
    ['http_fatal', 402, 'infrastructure'],
    // A 404 recorded by a transport older than the `no_route` class reads the same.
    ['http_fatal', 404, 'infrastructure'],
    ['http_retryable', 503, 'infrastructure'],
    ['connection_retryable', null, 'infrastructure'],
    ['budget_refused', null, 'infrastructure'],
    ['no_route', 404, 'infrastructure'],
    ['provider_not_allowed', 200, 'infrastructure'],
    ['model_mismatch', 200, 'infrastructure'],
  ] as const)('%s (HTTP %s) is a %s failure', (failure, status, category) => {
    const value = result(failure, status);
    expect(failureCategory(value)).toBe(category);
    expect(isInfrastructureFailure(value)).toBe(category === 'infrastructure');
  });

  it('names the account failure by its status and every other one by its class', () => {
    expect(isAccountFailure(result('http_fatal', 401))).toBe(true);
    expect(infrastructureReason(result('http_fatal', 402))).toBe('account failure: HTTP 402');
    expect(infrastructureReason(result('provider_not_allowed', 200))).toBe(
      'infrastructure failure: provider_not_allowed',
    );
    expect(infrastructureReason(result('http_fatal', 404))).toBe(
      'infrastructure failure: no_route (HTTP 404)',
    );
  });
});
