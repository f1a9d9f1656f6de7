import type { FailureClass } from '@chi/spec';
import type { Usage } from '@chi/spec/internal';

/** What one 2xx chat-completions body says, read defensively (every field may be missing). @internal */
export interface CompletionReading {
  /** The parsed body, or undefined when it was not JSON. */
  readonly body: unknown;
  readonly text: string | null;
  /** `none`, `truncated`, `empty_response` or `invalid_response`. */
  readonly failure: FailureClass;
  readonly detail: string | null;
  /** Observations that are not failures: model mismatch, completion tokens above the cap. */
  readonly notes: readonly string[];
  readonly finishReason: string | null;
  readonly truncated: boolean;
  readonly returnedModel: string | null;
  /** The provider display name as returned (`Moonshot AI`), before mapping to a slug. */
  readonly providerName: string | null;
  readonly generationId: string | null;
  readonly usage: Usage;
}

/** Usage with every field unknown. @internal */
export const UNKNOWN_USAGE: Usage = {
  promptTokens: null,
  completionTokens: null,
  reasoningTokens: null,
  totalTokens: null,
  costUsd: null,
};

function record(value: unknown): Record<string, unknown> | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null;
}

function text(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

function count(value: unknown): number | null {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : null;
}

function usd(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : null;
}

/** Reads `usage` from a completion or error body; absent subfields are null. @internal */
export function readUsage(body: unknown): Usage {
  const usage = record(record(body)?.usage);
  if (usage === null) return UNKNOWN_USAGE;
  return {
    promptTokens: count(usage.prompt_tokens),
    completionTokens: count(usage.completion_tokens),
    reasoningTokens: count(record(usage.completion_tokens_details)?.reasoning_tokens),
    totalTokens: count(usage.total_tokens),
    costUsd: usd(usage.cost),
  };
}

function messageText(content: unknown): string | null {
  if (typeof content === 'string') return content;
  // OpenAI-compatible servers may return content parts: keep the text parts, in order.
  if (Array.isArray(content)) {
    const parts = content
      .map((part) => record(part))
      .filter((part) => part?.type === 'text' && typeof part.text === 'string');
    return parts.length === 0 ? null : parts.map((part) => part?.text as string).join('');
  }
  return null;
}

function describeError(error: unknown): string {
  const fields = record(error);
  if (fields === null) return String(error);
  const code = fields.code === undefined ? '' : `${String(fields.code)} `;
  const message = typeof fields.message === 'string' ? fields.message : JSON.stringify(error);
  return `${code}${message}`.slice(0, 300);
}

/** The reading of a body that is not JSON. */
function unparseableCompletion(
  bodyText: string,
  generationIdHeader: string | null,
): CompletionReading {
  return {
    body: undefined,
    text: null,
    failure: 'invalid_response',
    detail: `response body is not valid JSON (${Buffer.byteLength(bodyText)} bytes)`,
    notes: [],
    finishReason: null,
    truncated: false,
    returnedModel: null,
    providerName: null,
    generationId: text(generationIdHeader),
    usage: UNKNOWN_USAGE,
  };
}

/** Notes on a readable answer: another model than requested, more tokens than the cap. */
function completionNotes(
  fields: Record<string, unknown> | null,
  usage: Usage,
  context: { readonly requestedModel: string; readonly maxOutputTokens: number },
): string[] {
  const notes: string[] = [];
  const returnedModel = text(fields?.model);
  if (returnedModel !== null && returnedModel !== context.requestedModel) {
    notes.push(
      `the API returned model ${returnedModel}, not the requested ${context.requestedModel}`,
    );
  }
  if (usage.completionTokens !== null && usage.completionTokens > context.maxOutputTokens) {
    notes.push(
      `usage.completion_tokens ${usage.completionTokens} exceeds the output cap of ${context.maxOutputTokens}`,
    );
  }
  return notes;
}

/** The reading of a choice that is not an error: truncated, empty, or an answer. */
function answerReading(
  base: Pick<
    CompletionReading,
    'body' | 'notes' | 'returnedModel' | 'providerName' | 'generationId' | 'usage'
  >,
  finishReason: string | null,
  content: string | null,
  context: { readonly maxOutputTokens: number },
): CompletionReading {
  const hasText = content !== null && content.trim() !== '';
  if (finishReason === 'length') {
    return {
      ...base,
      text: hasText ? content : null,
      failure: 'truncated',
      detail: `finish_reason "length": the output cap of ${context.maxOutputTokens} tokens was reached${hasText ? '' : ' before any answer text (reasoning can use the whole cap)'}`,
      finishReason,
      truncated: true,
    };
  }
  if (!hasText) {
    return {
      ...base,
      text: null,
      failure: 'empty_response',
      detail: 'the answer has no text content',
      finishReason,
      truncated: false,
    };
  }
  return { ...base, text: content, failure: 'none', detail: null, finishReason, truncated: false };
}

/**
 * Interprets the body of a 2xx chat-completions response. Order of precedence: an unparseable or
 * error-carrying body is `invalid_response` (an error delivered with HTTP 200 is not retried);
 * finish reason `length` is `truncated` (text kept if any); no text is `empty_response`.
 * @internal
 */
export function readCompletion(
  bodyText: string,
  context: {
    readonly requestedModel: string;
    readonly maxOutputTokens: number;
    readonly generationIdHeader: string | null;
  },
): CompletionReading {
  let body: unknown;
  try {
    body = JSON.parse(bodyText);
  } catch {
    return unparseableCompletion(bodyText, context.generationIdHeader);
  }
  const fields = record(body);
  const usage = readUsage(body);
  const base = {
    body,
    notes: completionNotes(fields, usage, context),
    returnedModel: text(fields?.model),
    providerName: text(fields?.provider),
    generationId: text(fields?.id) ?? text(context.generationIdHeader),
    usage,
  };
  const invalid = (detail: string, finishReason: string | null = null) => ({
    ...base,
    text: null,
    failure: 'invalid_response' as const,
    detail,
    finishReason,
    truncated: finishReason === 'length',
  });
  if (fields === null) return invalid('response body is not a JSON object');
  if (fields.error !== undefined && fields.error !== null) {
    return invalid(`error delivered with HTTP 200: ${describeError(fields.error)}`);
  }
  const choices = fields.choices;
  const choice = Array.isArray(choices) ? record(choices[0]) : null;
  if (choice === null) return invalid('the response has no choices');
  const finishReason = text(choice.finish_reason);
  if (finishReason === 'error') {
    const why = choice.error === undefined ? '' : `: ${describeError(choice.error)}`;
    return invalid(`finish_reason "error"${why}`, finishReason);
  }
  return answerReading(base, finishReason, messageText(record(choice.message)?.content), context);
}
