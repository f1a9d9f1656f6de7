import { InvalidArgumentError } from '@chi/spec';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import canonicalize from 'canonicalize';

/**
 * SHA-256 (lowercase hex) of the RFC 8785 canonical JSON of a value: the same digest
 * `@chi/report`'s `canonicalJsonSha256` computes, in pure JavaScript so it runs in a browser too.
 *
 * @throws InvalidArgumentError when the value holds a non-finite number or is not JSON.
 * @example
 * ```ts
 * canonicalSha256({ b: 1, a: 2 }) === canonicalSha256({ a: 2, b: 1 }); // true
 * ```
 */
export function canonicalSha256(value: unknown, field = 'value'): string {
  assertFiniteNumbers(value, field);
  const text = canonicalize(value);
  if (text === undefined) throw new InvalidArgumentError(field, 'expected a JSON value');
  return bytesToHex(sha256(utf8ToBytes(text)));
}

function assertFiniteNumbers(value: unknown, path: string): void {
  if (typeof value === 'number' && !Number.isFinite(value)) {
    throw new InvalidArgumentError(path, `JSON cannot represent ${String(value)}`);
  }
  if (Array.isArray(value)) {
    value.forEach((item, index) => {
      assertFiniteNumbers(item, `${path}[${index}]`);
    });
  } else if (typeof value === 'object' && value !== null)
    for (const [key, item] of Object.entries(value)) assertFiniteNumbers(item, `${path}.${key}`);
}
