import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatHexValue, formatMemoryKey, MEMORY_KEY_PATTERN, nearMissCode } from './memory-keys';
import { createRandom, TOKEN_ALPHABET } from './random';

function parseKey(key: string): number {
  return [...key.replace('-', '')].reduce(
    (code, character) => code * 32 + TOKEN_ALPHABET.indexOf(character),
    0,
  );
}

describe('formatMemoryKey', () => {
  it('writes 8 base32 digits, most significant first, as xxxx-xxxx', () => {
    expect(formatMemoryKey(0)).toBe('0000-0000');
    expect(formatMemoryKey(2 ** 40 - 1)).toBe('zzzz-zzzz');
    expect(formatMemoryKey(32 ** 4)).toBe('0001-0000');
    expect(formatMemoryKey(31)).toBe('0000-000z');
  });

  it('is a bijection onto the key pattern', () => {
    fc.assert(
      fc.property(fc.nat({ max: 2 ** 40 - 1 }), (code) => {
        const key = formatMemoryKey(code);
        return MEMORY_KEY_PATTERN.test(key) && parseKey(key) === code;
      }),
    );
  });
});

describe('nearMissCode', () => {
  it('changes exactly one character of the key', () => {
    fc.assert(
      fc.property(fc.nat({ max: 0xffffffff }), fc.nat({ max: 2 ** 40 - 1 }), (seed, code) => {
        const random = createRandom(seed);
        const original = formatMemoryKey(code);
        const variant = formatMemoryKey(nearMissCode(random, code));
        return (
          [...original].filter((character, index) => character !== variant[index]).length === 1
        );
      }),
    );
  });
});

describe('formatHexValue', () => {
  it('writes 8 lowercase hex digits', () => {
    expect(formatHexValue(0)).toBe('00000000');
    expect(formatHexValue(0xdeadbeef)).toBe('deadbeef');
    fc.assert(
      fc.property(
        fc.nat({ max: 0xffffffff }),
        (value) => formatHexValue(value) === value.toString(16).padStart(8, '0'),
      ),
    );
  });
});
