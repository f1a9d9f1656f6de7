/**
 * `@chi/openrouter`: a budgeted chat transport for OpenRouter and any OpenAI-compatible server.
 * It implements `ChatModel` from `@chi/spec`, reserves an upper bound with a `BudgetLedger` before
 * every try, settles the actual charge after it, and retries only what the protocol allows.
 *
 * @packageDocumentation
 */
export { apiKeyFromEnv, MissingApiKeyError } from './api-key';
export {
  CatalogError,
  type CatalogModelRequest,
  catalogEntry,
  type FetchCatalogOptions,
  fetchCatalog,
  matchesProviderSlug,
  OPENROUTER_BASE_URL,
  parseCatalog,
  providerSlugFor,
} from './catalog';
export { type ConcurrencyLimiter, createConcurrencyLimiter } from './concurrency-limiter';
export {
  createFileLedger,
  type FileLedger,
  type FileLedgerOptions,
  LedgerFileError,
  type LedgerRecovery,
} from './file-ledger';
export {
  INSTANCE_HEADER,
  instanceFromHeaders,
  instanceHeaders,
  SESSION_HEADER,
} from './instance-identity';
export { foldLedger } from './ledger-book';
export type { InspectableLedger, LedgerOptions } from './ledger-core';
export { createMemoryLedger, type MemoryLedgerOptions } from './memory-ledger';
export {
  createOpenRouterModel,
  NOT_BILLED_STATUSES,
  NOT_SENT_ERROR_CODES,
  type OpenRouterChatModel,
  type OpenRouterModelSettings,
  type ReasoningEffort,
} from './openrouter-model';
export { REDACTED, redactResponseBody, scrubSecrets } from './redact';
export {
  REPLY_BYTES_PER_TOKEN,
  REPLY_ENVELOPE_BYTES,
  replyByteLimit,
} from './reply-limit';
export {
  effectivePrice,
  type ReservationInput,
  requestInputBytes,
  reservationUsd,
} from './reservation';
export {
  DEFAULT_BACKOFF_MS,
  isRetryableStatus,
  parseRetryAfterMs,
  planRetry,
  type RetryPlanInput,
  type RetryWait,
} from './retry-policy';
