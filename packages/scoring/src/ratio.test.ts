import { RatioSchema } from '@chi/spec/internal';
import { describe, expect, it } from 'vitest';
import { ratio } from './ratio';

describe('ratio', () => {
  it('keeps the numbers and a null rate for an empty denominator', () => {
    expect(ratio(3, 8)).toEqual({ numerator: 3, denominator: 8, rate: 0.375 });
    expect(ratio(0, 0)).toEqual({ numerator: 0, denominator: 0, rate: null });
    expect(RatioSchema.safeParse(ratio(0, 0)).success).toBe(true);
  });

  it('refuses impossible counts', () => {
    expect(() => ratio(3, 2)).toThrow('numerator: expected an integer in [0, 2], found 3');
    expect(() => ratio(1, 2.5)).toThrow('denominator: expected a non-negative integer, found 2.5');
    expect(() => ratio(-1, 2)).toThrow('numerator');
  });
});
