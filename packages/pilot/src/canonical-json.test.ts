import { describe, expect, it } from 'vitest';
import { canonicalJson, sha256Hex } from './canonical-json';

describe('canonicalJson', () => {
  it('sorts keys and strips whitespace (RFC 8785)', () => {
    expect(canonicalJson({ b: 1, a: [true, null, 'x'], c: { z: 0.5, y: 1e21 } })).toBe(
      '{"a":[true,null,"x"],"b":1,"c":{"y":1e+21,"z":0.5}}',
    );
  });
  it('hashes the UTF-8 bytes', () => {
    expect(sha256Hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(sha256Hex('€')).toBe(sha256Hex(new Uint8Array([0xe2, 0x82, 0xac])));
  });
});
