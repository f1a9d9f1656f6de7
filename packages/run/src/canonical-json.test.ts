import { InvalidArgumentError } from '@chi/spec';
import canonicalize from 'canonicalize';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson, canonicalJsonSha256, sha256Hex } from './canonical-json';

describe('canonicalJson (RFC 8785)', () => {
  it('reproduces the RFC 8785 section 3.2.2 example byte for byte', () => {
    const input = JSON.parse(
      '{"numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001], "string": "\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/", "literals": [null, true, false]}',
    );
    expect(canonicalJson(input)).toBe(
      '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}',
    );
  });

  it('sorts keys by UTF-16 code units as in RFC 8785 section 3.2.3', () => {
    const input = {
      '\u20ac': 'Euro Sign',
      '\r': 'Carriage Return',
      '\ufb33': 'Hebrew Letter Dalet With Dagesh',
      '1': 'One',
      '\ud83d\ude00': 'Emoji: Grinning Face',
      '\u0080': 'Control',
      '\u00f6': 'Latin Small Letter O With Diaeresis',
    };
    // JSON.parse would reorder the integer-like key "1", so read the order off the text itself.
    const keys = [...canonicalJson(input).matchAll(/"([^"]*)":/g)].map((match) => match[1]);
    expect(keys).toEqual(['\\r', '1', '\u0080', '\u00f6', '\u20ac', '\ud83d\ude00', '\ufb33']);
  });

  it('drops undefined members and writes -0 as 0', () => {
    expect(canonicalJson({ b: undefined, a: -0 })).toBe('{"a":0}');
  });

  it('rejects NaN, infinities and functions with the path of the bad leaf', () => {
    expect(() => canonicalJson({ a: [1, Number.NaN] }, 'chart')).toThrow(InvalidArgumentError);
    expect(() => canonicalJson({ a: [1, Number.NaN] }, 'chart')).toThrow(
      /chart\.a\[1\]: expected a finite JSON number, found NaN/,
    );
    expect(() => canonicalJson({ x: Number.POSITIVE_INFINITY })).toThrow(/value\.x/);
    expect(() => canonicalJson({ f: () => 1 })).toThrow(
      /value\.f: expected a JSON value, found a function/,
    );
    expect(() => canonicalJson(undefined)).toThrow(/found a undefined|found undefined/);
  });

  it('is invariant under key order and round-trips through JSON.parse', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = canonicalJson(value);
        expect(canonicalJson(JSON.parse(text))).toBe(text);
        const reversed = reverseKeys(value);
        expect(canonicalJson(reversed)).toBe(text);
      }),
    );
  });
});

describe('canonicalJson against the canonicalize package it replaced', () => {
  // The serializer is the project's own since issue 38 (a loop instead of a reduce per item);
  // every run file and hash depends on it writing what `canonicalize` wrote, byte for byte.
  const leaf = fc.oneof(
    fc.string({ unit: 'grapheme' }),
    fc.string({ unit: 'binary' }),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.constant(undefined),
    fc.date({ noInvalidDate: true }),
  );
  const tree = fc.letrec((tie) => ({
    node: fc.oneof({ depthSize: 'small' }, leaf, tie('array'), tie('object')),
    array: fc.array(tie('node'), { maxLength: 6 }),
    object: fc.dictionary(fc.string({ unit: 'binary', maxLength: 4 }), tie('node'), {
      maxKeys: 6,
    }),
  }));

  it('writes the same text for any JSON-representable value', () => {
    fc.assert(
      fc.property(fc.oneof(tree.array, tree.object), (value) => {
        expect(canonicalJson(value)).toBe(canonicalize(value));
      }),
      { numRuns: 500 },
    );
  });

  it('writes the same text for integer-like keys, -0, holes and toJSON', () => {
    const sparse: unknown[] = [1];
    sparse[3] = 2;
    const values: unknown[] = [
      { '10': 1, '9': 2, b: { '2': [], '1': {} }, a: -0 },
      sparse,
      [undefined, { x: undefined, y: 1 }],
      { when: new Date(0), custom: { toJSON: () => ({ z: 1, a: [2] }) } },
      'top-level string',
      0.1 + 0.2,
      // Keys `Object.prototype` has, which the property-list path must not read from it.
      JSON.parse('{"__proto__": {"b": 1}, "a": [{"c": 2}], "c": {"a": 3}}'),
      { constructor: 1, list: [{ b: 2 }, {}], toString: { x: 1 } },
      Object.assign(Object.create(null) as object, { b: 1, a: { d: 2, c: [3] } }),
    ];
    for (const value of values) expect(canonicalJson(value)).toBe(canonicalize(value));
  });

  it('names the path of an unrepresentable leaf', () => {
    expect(() => canonicalJson({ a: [1, { b: Number.NaN }] })).toThrow(/value\.a\[1\]\.b/);
  });
});

describe('sha256Hex', () => {
  it('matches the published digests of "" and "abc"', () => {
    expect(sha256Hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(sha256Hex('abc')).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
    expect(sha256Hex(new TextEncoder().encode('abc'))).toBe(sha256Hex('abc'));
  });

  it('hashes the canonical form, so key order does not change the digest', () => {
    expect(canonicalJsonSha256({ a: 1, b: 2 })).toBe(canonicalJsonSha256({ b: 2, a: 1 }));
    expect(canonicalJsonSha256({ a: 1, b: 2 })).toBe(sha256Hex('{"a":1,"b":2}'));
  });
});

function reverseKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reverseKeys);
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).reverse();
    return Object.fromEntries(entries.map(([k, v]) => [k, reverseKeys(v)]));
  }
  return value;
}
