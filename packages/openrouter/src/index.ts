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
  createHttpInstanceControl,
  type HttpInstanceControlOptions,
  type InstanceControlOperation,
  instanceControlUrl,
  parseInstanceControlPath,
} from './instance-control';
export {
  INSTANCE_HEADER,
  instanceFromHeaders,
  instanceHeaders,
  SESSION_HEADER,
} from './instance-identity';
export type { InspectableLedger, LedgerOptions } from './ledger-core';
export { createMemoryLedger, type MemoryLedgerOptions } from './memory-ledger';
export {
  createOpenRouterModel,
  type OpenRouterChatModel,
  type OpenRouterModelSettings,
  type ReasoningEffort,
} from './openrouter-model';
export { type ReservationInput, requestInputBytes, reservationUsd } from './reservation';
