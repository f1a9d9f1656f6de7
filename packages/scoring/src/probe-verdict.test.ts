import type { AnswerKeyEntry } from '@chi/spec';
import { describe, expect, it } from 'vitest';
import { abstained, answered, failed } from './__fixtures__/tiny-world';
import { probePasses } from './probe-verdict';

const entry = (
  stratum: AnswerKeyEntry['stratum'],
  expectedValue: string | null,
  expectedSource: string | null,
): AnswerKeyEntry => ({
  id: 'q',
  stratum,
  key: 'k',
  asOf: null,
  expectedValue,
  expectedSource,
});

describe('probePasses', () => {
  it('content strata need the normalized value only', () => {
    for (const stratum of ['r', 't', 'u', 'i'] as const) {
      expect(
        probePasses(entry(stratum, '0a1b2c3d', 'src'), answered('q', ' 0A1B2C3D', 'other')),
      ).toBe(true);
      expect(probePasses(entry(stratum, '0a1b2c3d', 'src'), answered('q', '0a1b2c3e', 'src'))).toBe(
        false,
      );
      expect(probePasses(entry(stratum, '0a1b2c3d', 'src'), abstained('q'))).toBe(false);
    }
  });

  it('s needs the value and the trimmed, exact source', () => {
    expect(probePasses(entry('s', '0a1b2c3d', 'src'), answered('q', '0a1b2c3d', ' src '))).toBe(
      true,
    );
    expect(probePasses(entry('s', '0a1b2c3d', 'src'), answered('q', '0a1b2c3d', 'SRC'))).toBe(
      false,
    );
  });

  it('lures and unknown expectations pass only on explicit abstention', () => {
    expect(probePasses(entry('f', null, null), abstained('q'))).toBe(true);
    expect(probePasses(entry('t', null, null), abstained('q'))).toBe(true);
    expect(probePasses(entry('t', null, null), answered('q', '0a1b2c3d', 's'))).toBe(false);
    for (const status of ['invalid', 'missing', 'duplicate'] as const) {
      expect(probePasses(entry('f', null, null), failed('q', status))).toBe(false);
    }
  });
});
