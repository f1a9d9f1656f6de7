import { hash } from 'node:crypto';
import { InvalidArgumentError } from '@chi/spec';
import canonicalize from 'canonicalize';

/**
 * Serializes a JSON value as RFC 8785 (JSON Canonicalization Scheme) text: object keys sorted by
 * UTF-16 code units, no whitespace, ECMAScript number formatting. The same value always gives the
 * same bytes, so a hash taken over it is stable across machines and runs.
 *
 * `undefined` object members are dropped (as `JSON.stringify` does); NaN, infinities, a top-level
 * `undefined`, functions, symbols and bigints are rejected because JSON cannot represent them.
 *
 * @throws InvalidArgumentError naming the problem when the value is not representable.
 *
 * @example
 * ```ts
 * canonicalJson({ b: 1, a: [true, null] }); // '{"a":[true,null],"b":1}'
 * ```
 */
export function canonicalJson(value: unknown, field = 'value'): string {
  assertJsonRepresentable(value, field);
  const text = canonicalize(value);
  if (text === undefined) {
    throw new InvalidArgumentError(field, 'expected a JSON value, found undefined');
  }
  return text;
}

/**
 * The lowercase hex SHA-256 digest of a UTF-8 string or of raw bytes.
 *
 * @example
 * ```ts
 * sha256Hex(''); // 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'
 * ```
 */
export function sha256Hex(data: string | Uint8Array): string {
  return hash('sha256', data, 'hex');
}

/**
 * SHA-256 of the canonical JSON form of a value: the one hash function for structured data in a
 * release (manifest, chart data, scores).
 */
export function canonicalJsonSha256(value: unknown): string {
  return sha256Hex(canonicalJson(value));
}

function describe(value: unknown): string {
  if (typeof value === 'number') return String(value);
  if (typeof value === 'bigint') return `the bigint ${value}n`;
  return `a ${typeof value}`;
}

/** Walks the value so that an unrepresentable leaf is reported with its path, not deep inside. */
function assertJsonRepresentable(value: unknown, path: string): void {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) {
      throw new InvalidArgumentError(
        path,
        `expected a finite JSON number, found ${describe(value)}`,
      );
    }
    return;
  }
  if (typeof value !== 'object') {
    throw new InvalidArgumentError(path, `expected a JSON value, found ${describe(value)}`);
  }
  if (Array.isArray(value)) {
    value.forEach((item, index) => {
      if (item !== undefined) assertJsonRepresentable(item, `${path}[${index}]`);
    });
    return;
  }
  const withToJson = value as { toJSON?: unknown };
  if (typeof withToJson.toJSON === 'function') {
    assertJsonRepresentable((withToJson.toJSON as () => unknown).call(value), path);
    return;
  }
  for (const [key, member] of Object.entries(value)) {
    if (member !== undefined) assertJsonRepresentable(member, `${path}.${key}`);
  }
}
