/**
 * Bytes of response body allowed per output token a request may produce. Generous on purpose: a
 * token is a few bytes of UTF-8 text, at most a few dozen for the longest tokens of common
 * vocabularies; JSON escaping (`\uXXXX`, 6 bytes a character) and the text given twice (OpenRouter's
 * `reasoning` beside `reasoning_details`) stay far below 64 bytes a token.
 */
export const REPLY_BYTES_PER_TOKEN = 64;

/** Bytes allowed for the JSON envelope around the text: IDs, usage, provider fields (64 KiB). */
export const REPLY_ENVELOPE_BYTES = 64 * 1024;

/**
 * The largest response body a request with output cap `maxTokens` may have:
 * `maxTokens x 64 + 65536` bytes (for the pilot's 4096-token cap, 327 680 bytes). A larger body
 * cannot be an answer the cap allowed: the transport stops reading it there and records the try
 * as a model failure (`invalid_response`), storing no part of the body.
 *
 * @example
 * ```ts
 * replyByteLimit(100); // 71936
 * ```
 */
export function replyByteLimit(maxTokens: number): number {
  return maxTokens * REPLY_BYTES_PER_TOKEN + REPLY_ENVELOPE_BYTES;
}
