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
  const shape = assertJsonRepresentable(value, field);
  const text = shape.plain ? stringifySorted(value, shape.keys) : canonicalize(value);
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
 * RFC 8785 text of a plain value (see {@link JsonShape}) by the engine's own `JSON.stringify`,
 * given every object key of the value, sorted by UTF-16 code units, as its property list: each
 * object's members are then written in that order, which is RFC 8785's. Byte for byte what the
 * `canonicalize` package writes for the same value (its JavaScript walk, with a `reduce` and a
 * closure per item, was most of the time a run spent writing its worlds); any value that is not
 * plain goes through `canonicalize` itself.
 */
function stringifySorted(value: unknown, keys: ReadonlySet<string>): string | undefined {
  const sorted = [...keys].sort();
  // A key `Object.prototype` has (`__proto__`, `constructor`, ...) would be read from the
  // prototype of the objects that lack it: such a value takes the general path.
  if (sorted.some((key) => key in Object.prototype)) return canonicalize(value);
  return JSON.stringify(value, sorted);
}

/** The path of a value inside the checked one (`value.a[2].b`), built only for an error. */
function pathOf(root: string, segments: readonly (string | number)[]): string {
  return segments.reduce<string>(
    (path, segment) => (typeof segment === 'number' ? `${path}[${segment}]` : `${path}.${segment}`),
    root,
  );
}

/**
 * What {@link assertJsonRepresentable} learnt of a value: every object key in it, and whether it
 * is plain (only plain objects and arrays without holes, no `toJSON`), the values
 * `JSON.stringify` with a property list writes as RFC 8785 does. (A non-enumerable own property
 * that another object of the value has as a key would be written too: JSON data, parsed or built
 * from literals, has none.)
 */
interface JsonShape {
  readonly keys: Set<string>;
  plain: boolean;
}

/** Whether `node` is an object `JSON.stringify` and `canonicalize` read alike (no `toJSON`). */
function isPlainContainer(node: object): boolean {
  const prototype: unknown = Object.getPrototypeOf(node);
  return Array.isArray(node)
    ? prototype === Array.prototype
    : prototype === Object.prototype || prototype === null;
}

/**
 * Walks the value so that an unrepresentable leaf is reported with its path, not deep inside,
 * and returns its {@link JsonShape}. The path is kept as a stack of segments and spelled out only
 * for the error, so a valid value builds no strings.
 */
function assertJsonRepresentable(value: unknown, root: string): JsonShape {
  const shape: JsonShape = { keys: new Set(), plain: true };
  const segments: (string | number)[] = [];
  const failure = (node: unknown, expected: string): InvalidArgumentError =>
    new InvalidArgumentError(
      pathOf(root, segments),
      `expected ${expected}, found ${describe(node)}`,
    );
  const visit = (node: unknown): void => {
    if (node === null || typeof node === 'string' || typeof node === 'boolean') return;
    if (typeof node === 'number') {
      if (!Number.isFinite(node)) throw failure(node, 'a finite JSON number');
      return;
    }
    if (typeof node !== 'object') throw failure(node, 'a JSON value');
    if (shape.plain && !isPlainContainer(node)) shape.plain = false;
    if (Array.isArray(node)) {
      for (let index = 0; index < node.length; index += 1) {
        if (!(index in node)) {
          shape.plain = false;
          continue;
        }
        const item: unknown = node[index];
        if (item === undefined) continue;
        segments.push(index);
        visit(item);
        segments.pop();
      }
      return;
    }
    const withToJson = node as { toJSON?: unknown };
    if (typeof withToJson.toJSON === 'function') {
      shape.plain = false;
      visit((withToJson.toJSON as () => unknown).call(node));
      return;
    }
    for (const key of Object.keys(node)) {
      shape.keys.add(key);
      const member = (node as Record<string, unknown>)[key];
      if (member === undefined) continue;
      segments.push(key);
      visit(member);
      segments.pop();
    }
  };
  visit(value);
  return shape;
}
