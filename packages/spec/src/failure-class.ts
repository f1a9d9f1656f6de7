import type { ChatResult } from './chat-model';
import { INFRASTRUCTURE_FAILURES } from './chat-model';

/** HTTP statuses that are account problems (key, credits), never the model's answer. */
export const ACCOUNT_FAILURE_STATUSES: readonly number[] = [401, 402];

/**
 * HTTP statuses of a request that never reached a model: 404 is OpenRouter's "no endpoints found"
 * (no provider of the allowlist serves the model with the requested parameters) and an
 * OpenAI-compatible server's unknown model. Recorded as `no_route` by the transport; an older log
 * may hold it as `http_fatal`, and both read the same.
 */
export const ROUTING_FAILURE_STATUSES: readonly number[] = [404];

/** Whether a request's failure is the model's (scored) or the infrastructure's (block incomplete). */
export type FailureCategory = 'none' | 'model' | 'infrastructure';

function lastStatus(result: ChatResult): number | null {
  return result.tries[result.tries.length - 1]?.status ?? null;
}

/** True when a request failed because of the account (HTTP 401 or 402), not the model. */
export function isAccountFailure(result: ChatResult): boolean {
  if (result.failure !== 'http_fatal') return false;
  const status = lastStatus(result);
  return status !== null && ACCOUNT_FAILURE_STATUSES.includes(status);
}

function isLegacyRoutingFailure(result: ChatResult): boolean {
  if (result.failure !== 'http_fatal') return false;
  const status = lastStatus(result);
  return status !== null && ROUTING_FAILURE_STATUSES.includes(status);
}

/**
 * True for failures that make a block incomplete and are never scored against the model: the
 * infrastructure classes of `@chi/spec` (`http_retryable`, `connection_retryable`,
 * `budget_refused`, `no_route`, `provider_not_allowed`, `model_mismatch`), account failures (HTTP
 * 401 or 402 recorded as `http_fatal`) and a 404 recorded as `http_fatal` by an older transport.
 *
 * @example
 * ```ts
 * isInfrastructureFailure({ ...result, failure: 'timeout' }); // false: a model failure, scored
 * isInfrastructureFailure({ ...result, failure: 'provider_not_allowed' }); // true
 * ```
 */
export function isInfrastructureFailure(result: ChatResult): boolean {
  return (
    INFRASTRUCTURE_FAILURES.includes(result.failure) ||
    isAccountFailure(result) ||
    isLegacyRoutingFailure(result)
  );
}

/** The category of a request's result: no failure, the model's failure, or the infrastructure's. */
export function failureCategory(result: ChatResult): FailureCategory {
  if (result.failure === 'none') return 'none';
  return isInfrastructureFailure(result) ? 'infrastructure' : 'model';
}

/** The one-line reason an infrastructure failure gives for an incomplete block. */
export function infrastructureReason(result: ChatResult): string {
  if (isAccountFailure(result)) return `account failure: HTTP ${lastStatus(result)}`;
  if (isLegacyRoutingFailure(result))
    return `infrastructure failure: no_route (HTTP ${lastStatus(result)})`;
  return `infrastructure failure: ${result.failure}`;
}
