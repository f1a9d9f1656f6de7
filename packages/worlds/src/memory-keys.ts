import { type SeededRandom, TOKEN_ALPHABET } from './random';

/**
 * The format every memory key has, whatever its role (target, distractor, lure): two groups of
 * four base32 characters, e.g. `7kq2-mx0d`. A key encodes a 40-bit integer, most significant
 * digit first.
 */
export const MEMORY_KEY_PATTERN = /^[0-9a-hjkmnp-tv-z]{4}-[0-9a-hjkmnp-tv-z]{4}$/;

const DIGIT_CODES: number[] = [];
for (let digit = 0; digit < 32; digit++) DIGIT_CODES.push(TOKEN_ALPHABET.charCodeAt(digit));
const HYPHEN = 0x2d;
const TWENTY_BITS = 0x100000;
const DIGIT_WEIGHTS = [32 ** 7, 32 ** 6, 32 ** 5, 32 ** 4, 32 ** 3, 32 ** 2, 32, 1];

/** The key text of a 40-bit integer: 8 base32 digits as `xxxx-xxxx` (one string allocation). */
export function formatMemoryKey(code: number): string {
  const high = Math.floor(code / TWENTY_BITS);
  const low = code - high * TWENTY_BITS;
  return String.fromCharCode(
    DIGIT_CODES[high >>> 15] as number,
    DIGIT_CODES[(high >>> 10) & 31] as number,
    DIGIT_CODES[(high >>> 5) & 31] as number,
    DIGIT_CODES[high & 31] as number,
    HYPHEN,
    DIGIT_CODES[low >>> 15] as number,
    DIGIT_CODES[(low >>> 10) & 31] as number,
    DIGIT_CODES[(low >>> 5) & 31] as number,
    DIGIT_CODES[low & 31] as number,
  );
}

/** A key code that differs from `code` in exactly one of its 8 digits (uniform position and digit). */
export function nearMissCode(random: SeededRandom, code: number): number {
  const weight = DIGIT_WEIGHTS[random.int(0, 7)] as number;
  const digit = Math.floor(code / weight) % 32;
  let replacement = random.int(0, 30);
  if (replacement >= digit) replacement += 1;
  return code + (replacement - digit) * weight;
}

const HEX_CODES: number[] = [];
for (let nibble = 0; nibble < 16; nibble++) HEX_CODES.push(nibble.toString(16).charCodeAt(0));

/** A uint32 as 8 lowercase hex characters, the payload format of every record value. */
export function formatHexValue(value: number): string {
  return String.fromCharCode(
    HEX_CODES[value >>> 28] as number,
    HEX_CODES[(value >>> 24) & 15] as number,
    HEX_CODES[(value >>> 20) & 15] as number,
    HEX_CODES[(value >>> 16) & 15] as number,
    HEX_CODES[(value >>> 12) & 15] as number,
    HEX_CODES[(value >>> 8) & 15] as number,
    HEX_CODES[(value >>> 4) & 15] as number,
    HEX_CODES[value & 15] as number,
  );
}
