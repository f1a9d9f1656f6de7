import { z } from 'zod';
import { CountSchema, EvidenceClassSchema, IsoTimeSchema, UsdSchema } from './primitives';

/** One chat message. */
export const ChatMessageSchema = z.strictObject({
  role: z.enum(['system', 'user', 'assistant']),
  content: z.string(),
});
/** One chat message. */
export type ChatMessage = z.infer<typeof ChatMessageSchema>;

/**
 * Why a request did not produce a usable answer. `none` means it did.
 * - `http_retryable`: HTTP 429 or 5xx after the allowed retries (infrastructure; block incomplete)
 * - `connection_retryable`: connection failed before any response, after the allowed retries
 * - `timeout`: the deadline passed (a model failure; never retried; the reservation is kept)
 * - `truncated`: the output cap was hit (finish reason `length`)
 * - `empty_response`: no text content
 * - `invalid_response`: a body that is not the expected shape, or an error delivered with HTTP 200
 * - `http_fatal`: 4xx other than 404 and 429 (bad parameters, key, credits, moderation); 401 and
 *   402 are account failures (block incomplete, see `@chi/run`), the rest model failures
 * - `budget_refused`: the ledger refused the reservation; nothing was sent
 * - `no_route`: HTTP 404, no endpoint serves the model (OpenRouter's "no endpoints found", an
 *   unknown model on an OpenAI-compatible server): the request never reached a model
 * - `provider_not_allowed`: the response was served by a provider outside the allowlist
 * - `model_mismatch`: the response names a different model than the one requested
 *
 * The last three are configuration or infrastructure failures: the block is incomplete and the
 * reply (kept for transparency) is never scored against the model.
 */
export const FailureClassSchema = z.enum([
  'none',
  'http_retryable',
  'connection_retryable',
  'timeout',
  'truncated',
  'empty_response',
  'invalid_response',
  'http_fatal',
  'budget_refused',
  'no_route',
  'provider_not_allowed',
  'model_mismatch',
]);
/** Why a request did not produce a usable answer; `none` means it did. */
export type FailureClass = z.infer<typeof FailureClassSchema>;

/** Failure classes that are the infrastructure's fault: they make a matched block incomplete. */
export const INFRASTRUCTURE_FAILURES: readonly FailureClass[] = [
  'http_retryable',
  'connection_retryable',
  'budget_refused',
  'no_route',
  'provider_not_allowed',
  'model_mismatch',
];

/** Token usage and cost as reported by the endpoint. Every field may be absent (null). */
export const UsageSchema = z.strictObject({
  promptTokens: CountSchema.nullable(),
  completionTokens: CountSchema.nullable(),
  reasoningTokens: CountSchema.nullable(),
  totalTokens: CountSchema.nullable(),
  /** USD charged as reported by the endpoint (`usage.cost` on OpenRouter). */
  costUsd: UsdSchema.nullable(),
});
/** Token usage and cost as reported by the endpoint. */
export type Usage = z.infer<typeof UsageSchema>;

/** One HTTP try within a request: status, how it failed, and the wait before the next try. */
export const TryRecordSchema = z.strictObject({
  tryIndex: CountSchema,
  startedAt: IsoTimeSchema,
  status: z.int().nullable(),
  failure: FailureClassSchema,
  detail: z.string().nullable(),
  /** Wait before the next try, in milliseconds; null when there is no next try. */
  waitMs: CountSchema.nullable(),
  /** Where the wait came from: Retry-After header or the backoff schedule. */
  waitSource: z.enum(['retry_after', 'backoff']).nullable(),
});
/** One HTTP try within a request. */
export type TryRecord = z.infer<typeof TryRecordSchema>;

/** What a chat model returns for one request. It never throws for model or network failures. */
export const ChatResultSchema = z.strictObject({
  requestId: z.string().min(1),
  evidenceClass: EvidenceClassSchema,
  /** The answer text, or null when there is none. */
  text: z.string().nullable(),
  failure: FailureClassSchema,
  failureDetail: z.string().nullable(),
  finishReason: z.string().nullable(),
  truncated: z.boolean(),
  requestedModel: z.string().min(1),
  /** Model ID the API says answered. */
  returnedModel: z.string().nullable(),
  /** Provider as an allowlist slug when it could be mapped, else the display name. */
  returnedProvider: z.string().nullable(),
  generationId: z.string().nullable(),
  usage: UsageSchema,
  startedAt: IsoTimeSchema,
  finishedAt: IsoTimeSchema,
  latencyMs: z.number().min(0),
  tries: z.array(TryRecordSchema),
  /** USD reserved for this request (0 for systems without a ledger). */
  reservedUsd: UsdSchema,
  /** USD recorded as charged; for a timeout or uncertain outcome, the whole reservation. */
  chargedUsd: UsdSchema,
  /** The response body with secrets and hidden reasoning removed; null when there was none. */
  redactedResponse: z.unknown(),
});
/** What a chat model returns for one request. */
export type ChatResult = z.infer<typeof ChatResultSchema>;

/** One request to a chat model. */
export interface ChatRequest {
  /** Stable ID of the registered request (same across resumes), used for logging and idempotency. */
  readonly requestId: string;
  readonly messages: readonly ChatMessage[];
  /** Output cap in tokens, including reasoning where the provider counts it. */
  readonly maxOutputTokens?: number;
  /** Cancels the request; a cancelled request keeps its reservation. */
  readonly signal?: AbortSignal;
  /**
   * The memory instance and session this request belongs to, for a system that keeps its own
   * memory (memory policy `system`); absent under the notebook policy. Over HTTP it travels as the
   * `X-Chi-Instance` and `X-Chi-Session` headers.
   */
  readonly instance?: ChatInstance;
}

/**
 * The identity of a request under the `system` memory policy: requests with one `instanceId`
 * share one memory (history A across its checkpoints, one memory block's encode and probes); a new
 * `instanceId` is a reset. `sessionId` names the one session (request) within it, stable across
 * resumes.
 */
export interface ChatInstance {
  /** Stable ID of the memory instance; a new ID is a blank memory. */
  readonly instanceId: string;
  /** Stable ID of this session within the instance (the registered request's ID). */
  readonly sessionId: string;
}

/**
 * Anything that answers chat messages: the OpenRouter transport, an OpenAI-compatible endpoint,
 * or a scripted reference system. The runner cannot tell them apart.
 *
 * `generate` resolves for every model, network and budget failure, with `failure` set; it rejects
 * only on programming errors (an invalid request).
 */
export interface ChatModel {
  readonly specificationVersion: 'chi-chat-v1';
  /** Provider label, e.g. `openrouter`, `openai-compatible`, `scripted`. */
  readonly provider: string;
  /** The requested model ID, e.g. `moonshotai/kimi-k3`. */
  readonly modelId: string;
  readonly evidenceClass: z.infer<typeof EvidenceClassSchema>;
  /** Send one request; resolves with the result (failures included), never rejects for them. */
  generate(request: ChatRequest): Promise<ChatResult>;
  /**
   * The optional instance-control extension of a system that keeps its own memory: export, import
   * and erase one instance's state. Absent: the system offers none (interventions that need it are
   * marked not applicable, never faked).
   */
  readonly instanceControl?: InstanceControl;
}

/** The version of the instance-control extension (frozen as `SystemSpec.instanceControl`). */
export const INSTANCE_CONTROL_VERSION = 'chi-instance-control-v1' as const;

/**
 * An instance's state as the system exports it: opaque to the runner (only ever imported back,
 * into the same or another instance of the same system), with the size the system reports.
 */
export interface InstanceState {
  /** The system's own serialization; the runner never reads it. */
  readonly state: unknown;
  /** UTF-8 bytes the instance holds, as the system counts them (the report's bytes stored). */
  readonly bytesStored: number;
}

/**
 * State control over one memory instance (`chi-instance-control-v1`). Over HTTP:
 * `POST <base>/chi/instances/{instanceId}/export` (answers an {@link InstanceState}),
 * `.../import` (body: an exported {@link InstanceState}; replaces the instance's state) and
 * `.../erase` (the instance becomes a blank memory), the instance ID percent-encoded. Each
 * rejects (throws) when the operation failed: a state operation is never silently skipped.
 */
export interface InstanceControl {
  readonly version: typeof INSTANCE_CONTROL_VERSION;
  exportState(instanceId: string): Promise<InstanceState>;
  importState(instanceId: string, state: InstanceState): Promise<void>;
  erase(instanceId: string): Promise<void>;
}
