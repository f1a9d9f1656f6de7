import { hash } from 'node:crypto';
import { InvalidArgumentError } from '@chi/spec';

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
  const text = serializeCanonical(value);
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

/**
 * RFC 8785 text of a value {@link assertJsonRepresentable} accepted, byte for byte what the
 * `canonicalize` package (used before) writes: primitives through `JSON.stringify`, `toJSON`
 * followed, keys sorted by UTF-16 code units, `undefined` and symbol members dropped, `undefined`
 * array items written as `null`, and an array's holes skipped as `Array.prototype.reduce` skips
 * them. One loop per container instead of a `reduce` with a closure per item: a run's worlds are
 * serialized whole when they are written.
 */
function serializeCanonical(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  const withToJson = value as { toJSON?: unknown };
  if (withToJson.toJSON instanceof Function)
    return serializeCanonical((withToJson.toJSON as () => unknown).call(value));
  if (Array.isArray(value)) {
    let text = '[';
    for (let index = 0; index < value.length; index += 1) {
      if (!(index in value)) continue;
      if (index !== 0) text += ',';
      const item: unknown = value[index];
      text += serializeCanonical(item === undefined || typeof item === 'symbol' ? null : item);
    }
    return `${text}]`;
  }
  const record = value as Record<string, unknown>;
  let text = '{';
  for (const key of Object.keys(record).sort()) {
    const member = record[key];
    if (member === undefined || typeof member === 'symbol') continue;
    if (text.length > 1) text += ',';
    text += `${JSON.stringify(key)}:${serializeCanonical(member)}`;
  }
  return `${text}}`;
}

/** The path of a value inside the checked one (`value.a[2].b`), built only for an error. */
function pathOf(root: string, segments: readonly (string | number)[]): string {
  return segments.reduce<string>(
    (path, segment) => (typeof segment === 'number' ? `${path}[${segment}]` : `${path}.${segment}`),
    root,
  );
}

/**
 * Walks the value so that an unrepresentable leaf is reported with its path, not deep inside.
 * The path is kept as a stack of segments and spelled out only for the error, so a valid value
 * builds no strings.
 */
function assertJsonRepresentable(value: unknown, root: string): void {
  const segments: (string | number)[] = [];
  const visit = (node: unknown): void => {
    if (node === null || typeof node === 'string' || typeof node === 'boolean') return;
    if (typeof node === 'number') {
      if (!Number.isFinite(node))
        throw new InvalidArgumentError(
          pathOf(root, segments),
          `expected a finite JSON number, found ${describe(node)}`,
        );
      return;
    }
    if (typeof node !== 'object')
      throw new InvalidArgumentError(
        pathOf(root, segments),
        `expected a JSON value, found ${describe(node)}`,
      );
    if (Array.isArray(node)) {
      node.forEach((item, index) => {
        if (item === undefined) return;
        segments.push(index);
        visit(item);
        segments.pop();
      });
      return;
    }
    const withToJson = node as { toJSON?: unknown };
    if (typeof withToJson.toJSON === 'function') {
      visit((withToJson.toJSON as () => unknown).call(node));
      return;
    }
    for (const key of Object.keys(node)) {
      const member = (node as Record<string, unknown>)[key];
      if (member === undefined) continue;
      segments.push(key);
      visit(member);
      segments.pop();
    }
  };
  visit(value);
}
