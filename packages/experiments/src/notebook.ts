import { createHash } from 'node:crypto';
import { InvalidArgumentError } from '@chi/spec';

/** The notebook cap of the pilot protocol, in UTF-8 bytes. */
export const NOTEBOOK_CAP_BYTES = 6000;

/** A notebook as the harness persists it: the kept text and how it was obtained. */
export interface NotebookContent {
  /** The kept notes (well-formed UTF-16; its UTF-8 encoding is `bytes` long). */
  readonly text: string;
  /** UTF-8 byte length of the kept text. */
  readonly bytes: number;
  /** UTF-8 byte length of the text the system produced, before the cap was applied. */
  readonly originalBytes: number;
  /** True when the cap removed at least one byte. */
  readonly truncated: boolean;
  /** Lowercase hex SHA-256 of the kept UTF-8 bytes. */
  readonly sha256: string;
  /** The cap applied, in bytes; null for a declared uncapped reference condition. */
  readonly capBytes: number | null;
}

const encoder = new TextEncoder();
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** The text with every lone UTF-16 surrogate replaced by U+FFFD (`String.prototype.toWellFormed`). */
export function toWellFormed(text: string): string {
  return text.replace(LONE_SURROGATE, '\ufffd');
}
const decoder = new TextDecoder('utf-8', { fatal: true });

/**
 * Applies the published notebook rule to the text a system wrote.
 *
 * The rule, in full:
 * 1. The text is made well-formed: every lone UTF-16 surrogate becomes U+FFFD
 *    (as `String.prototype.toWellFormed` does), so it has exactly one UTF-8 encoding.
 * 2. `originalBytes` is the length of that UTF-8 encoding.
 * 3. If it is at most `capBytes`, the notes are kept whole. Otherwise the notes become the longest
 *    prefix made of whole code points whose UTF-8 encoding is at most `capBytes` long: the cut is
 *    moved back from byte `capBytes` over continuation bytes (`10xxxxxx`) to the start of the code
 *    point that would straddle the cap. Nothing else is changed: no trimming, no normalization.
 *
 * `capBytes: null` keeps everything; it exists only for declared reference conditions (the
 * `perfect` scripted system), never for an evaluated model.
 *
 * @example
 * ```ts
 * const kept = applyNotebookCap('a€b', 3); // '€' is 3 bytes and would straddle the cap
 * kept.text; // 'a'
 * kept.truncated; // true
 * kept.originalBytes; // 5
 * ```
 */
export function applyNotebookCap(
  text: string,
  capBytes: number | null = NOTEBOOK_CAP_BYTES,
): NotebookContent {
  if (capBytes !== null && (!Number.isInteger(capBytes) || capBytes < 0)) {
    throw new InvalidArgumentError(
      'capBytes',
      `expected a non-negative integer or null, found ${String(capBytes)}`,
    );
  }
  const wellFormed = toWellFormed(text);
  const encoded = encoder.encode(wellFormed);
  if (capBytes === null || encoded.length <= capBytes) {
    return {
      text: wellFormed,
      bytes: encoded.length,
      originalBytes: encoded.length,
      truncated: false,
      sha256: sha256Bytes(encoded),
      capBytes,
    };
  }
  let cut = capBytes;
  // encoded[cut] is the first byte left out; if it continues a code point, that code point straddles.
  while (cut > 0 && ((encoded[cut] ?? 0) & 0xc0) === 0x80) cut -= 1;
  const kept = encoded.subarray(0, cut);
  return {
    text: decoder.decode(kept),
    bytes: kept.length,
    originalBytes: encoded.length,
    truncated: true,
    sha256: sha256Bytes(kept),
    capBytes,
  };
}

/** UTF-8 byte length of a string (after making it well-formed). */
export function utf8ByteLength(text: string): number {
  return encoder.encode(toWellFormed(text)).length;
}

function sha256Bytes(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** The empty notebook every trajectory starts from. */
export function emptyNotebook(capBytes: number | null = NOTEBOOK_CAP_BYTES): NotebookContent {
  return applyNotebookCap('', capBytes);
}

/**
 * The notebook a reversible fault shows (the divergence protocol's `corrupted` notebook source):
 * unreadable, the same UTF-8 byte length.
 */
export function corruptedNotebook(notes: string): string {
  return '~'.repeat(utf8ByteLength(notes));
}
