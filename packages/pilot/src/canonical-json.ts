import { createHash } from 'node:crypto';
import { InvalidArgumentError } from '@chi/spec';
import canonicalize from 'canonicalize';

/**
 * RFC 8785 (JSON Canonicalization Scheme) text of a JSON value: keys sorted by UTF-16 code units,
 * no whitespace, ECMAScript number formatting. The manifest is stored in exactly this form, so its
 * file bytes are its hash input.
 *
 * @example
 * ```ts
 * canonicalJson({ b: 1, a: [true, null] }); // '{"a":[true,null],"b":1}'
 * ```
 */
export function canonicalJson(value: unknown): string {
  const text = canonicalize(value);
  if (text === undefined)
    throw new InvalidArgumentError('value', 'expected a JSON value, found undefined');
  return text;
}

/** Lowercase hex SHA-256 of a string's UTF-8 bytes (or of raw bytes). */
export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}
