import type { ChatMessage } from '@chi/spec';

/**
 * The error body every OpenAI-compatible server sends with a 4xx/5xx status:
 * `{ error: { message, type, param, code } }`. The official clients read `message` and `code`.
 */
export interface OpenAiErrorBody {
  readonly error: {
    readonly message: string;
    readonly type: 'invalid_request_error' | 'not_found_error' | 'server_error';
    readonly param: string | null;
    readonly code: string | null;
  };
}

/** An HTTP status with its OpenAI error body. */
export interface OpenAiError {
  readonly status: number;
  readonly body: OpenAiErrorBody;
}

/** Builds an {@link OpenAiError}. */
export function openAiError(
  status: number,
  message: string,
  options: { type?: OpenAiErrorBody['error']['type']; param?: string; code?: string } = {},
): OpenAiError {
  return {
    status,
    body: {
      error: {
        message,
        type: options.type ?? (status >= 500 ? 'server_error' : 'invalid_request_error'),
        param: options.param ?? null,
        code: options.code ?? null,
      },
    },
  };
}

/** A chat completion request as the scripted server understands it. */
export interface ChatCompletionRequest {
  readonly model: string;
  readonly messages: ChatMessage[];
  readonly stream: boolean;
  /** `stream_options.include_usage`: a last chunk with the usage and no choices. */
  readonly includeUsage: boolean;
  /**
   * `max_tokens` or `max_completion_tokens` (the smaller when both are given): the reply is cut
   * there and finishes with `length`; null when neither is given.
   */
  readonly maxTokens: number | null;
}

/** A positive integer field, absent (undefined or null), or the 400 naming it. */
function countField(body: Record<string, unknown>, param: string): number | null | OpenAiError {
  const value = body[param];
  if (value === undefined || value === null) return null;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1)
    return openAiError(400, `${param}: expected an integer >= 1, found ${JSON.stringify(value)}`, {
      param,
    });
  return value;
}

/**
 * The request fields a scripted system cannot honour, each a 400 naming the field rather than
 * a silent answer that ignores it: `n` > 1 (one choice per request).
 */
function unsupportedField(body: Record<string, unknown>): OpenAiError | null {
  const choices = countField(body, 'n');
  if (typeof choices === 'object' && choices !== null) return choices;
  if (choices !== null && choices > 1)
    return openAiError(
      400,
      `n: this server returns one choice per request (n = 1), found n = ${choices}`,
      { param: 'n', code: 'unsupported_parameter' },
    );
  return null;
}

/** `max_tokens` and `max_completion_tokens`: the smaller, null when neither, or the 400. */
function maxTokensOf(body: Record<string, unknown>): number | null | OpenAiError {
  const limits: number[] = [];
  for (const param of ['max_tokens', 'max_completion_tokens']) {
    const value = countField(body, param);
    if (typeof value === 'object' && value !== null) return value;
    if (value !== null) limits.push(value);
  }
  return limits.length === 0 ? null : Math.min(...limits);
}

const ROLES: Readonly<Record<string, ChatMessage['role']>> = {
  system: 'system',
  // Newer OpenAI clients send system instructions as `developer`; the meaning is the same.
  developer: 'system',
  user: 'user',
  assistant: 'assistant',
};

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The text of a message's `content`: a string, or an array of content parts of which only
 * `{ type: 'text', text }` is accepted, joined with a line break (as vLLM and llama.cpp server
 * join them), so a JSON block split across parts still reads.
 */
function contentText(content: unknown, param: string): string | OpenAiError {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content))
    return openAiError(400, `${param} must be a string or an array of content parts`, { param });
  const texts: string[] = [];
  for (const [index, part] of content.entries()) {
    if (!isRecord(part) || part.type !== 'text' || typeof part.text !== 'string') {
      const type = isRecord(part) && typeof part.type === 'string' ? part.type : typeof part;
      return openAiError(
        400,
        `${param}[${index}]: only text content parts ({"type":"text","text":...}) are supported, found ${JSON.stringify(type)}`,
        { param: `${param}[${index}]`, code: 'unsupported_content_part' },
      );
    }
    texts.push(part.text);
  }
  return texts.join('\n');
}

/**
 * Reads a parsed `POST /v1/chat/completions` body into a {@link ChatCompletionRequest}, or the
 * 400 error an OpenAI server would answer (naming the `param`).
 */
export function readChatCompletionRequest(body: unknown): ChatCompletionRequest | OpenAiError {
  if (!isRecord(body)) return openAiError(400, 'the request body must be a JSON object');
  if (typeof body.model !== 'string' || body.model === '')
    return openAiError(400, 'you must provide a model parameter', { param: 'model' });
  if (!Array.isArray(body.messages) || body.messages.length === 0)
    return openAiError(400, 'messages must be a non-empty array', { param: 'messages' });
  const messages: ChatMessage[] = [];
  for (const [index, message] of body.messages.entries()) {
    const param = `messages[${index}]`;
    if (!isRecord(message)) return openAiError(400, `${param} must be an object`, { param });
    const role = typeof message.role === 'string' ? ROLES[message.role] : undefined;
    if (role === undefined)
      return openAiError(
        400,
        `${param}.role: expected system, developer, user or assistant, found ${JSON.stringify(message.role ?? null)}`,
        { param: `${param}.role` },
      );
    const content = contentText(message.content, `${param}.content`);
    if (typeof content !== 'string') return content;
    messages.push({ role, content });
  }
  if (body.stream !== undefined && body.stream !== null && typeof body.stream !== 'boolean')
    return openAiError(400, 'stream must be a boolean', { param: 'stream' });
  const streamOptions = body.stream_options;
  if (streamOptions !== undefined && streamOptions !== null && !isRecord(streamOptions))
    return openAiError(400, 'stream_options must be an object', { param: 'stream_options' });
  const stream = body.stream === true;
  if (!stream && isRecord(streamOptions))
    return openAiError(400, 'stream_options is only allowed when stream is true', {
      param: 'stream_options',
    });
  const unsupported = unsupportedField(body);
  if (unsupported !== null) return unsupported;
  const maxTokens = maxTokensOf(body);
  if (typeof maxTokens === 'object' && maxTokens !== null) return maxTokens;
  return {
    model: body.model,
    messages,
    stream,
    includeUsage: isRecord(streamOptions) && streamOptions.include_usage === true,
    maxTokens,
  };
}
