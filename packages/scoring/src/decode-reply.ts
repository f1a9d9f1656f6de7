/** A raw model reply: text, or the bytes as received (decoded as UTF-8 here). */
export type RawReply = string | Uint8Array;

/** The reply text and reply-level notes about how it was obtained. */
export interface DecodedReply {
  readonly text: string;
  readonly notes: readonly string[];
}

/**
 * Turns a raw reply into text without ever throwing. Bytes are decoded as UTF-8; invalid sequences
 * become U+FFFD (so a value containing them can only be wrong, never silently repaired) and a note
 * says so. A byte-order mark is dropped. Anything that is neither a string nor a `Uint8Array`
 * (a JavaScript caller passing `undefined` for a failed request, say) becomes an empty reply with
 * a note.
 */
export function decodeReply(reply: unknown): DecodedReply {
  if (typeof reply === 'string') {
    return { text: reply.charCodeAt(0) === 0xfeff ? reply.slice(1) : reply, notes: [] };
  }
  if (reply instanceof Uint8Array) {
    try {
      return { text: new TextDecoder('utf-8', { fatal: true }).decode(reply), notes: [] };
    } catch {
      const text = new TextDecoder('utf-8', { fatal: false }).decode(reply);
      return {
        text,
        notes: ['reply bytes are not valid UTF-8: invalid sequences were replaced by U+FFFD'],
      };
    }
  }
  const found = reply === null ? 'null' : typeof reply;
  return {
    text: '',
    notes: [`reply is neither a string nor a Uint8Array (found ${found}): treated as empty`],
  };
}
