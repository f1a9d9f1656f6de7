import { describe, expect, it } from 'vitest';
import { bootstrapPValue, holmAdjust } from './holm-adjust.js';

describe('holmAdjust', () => {
  it('matches a hand-worked family of three with one gap', () => {
    // sorted: 0.01 (x3 = 0.03), 0.03 (x2 = 0.06), 0.04 (x1 = 0.04 -> running max 0.06)
    const adjusted = holmAdjust([0.01, 0.04, 0.03, null]);
    expect(adjusted[0]).toBeCloseTo(0.03, 12);
    expect(adjusted[1]).toBeCloseTo(0.06, 12);
    expect(adjusted[2]).toBeCloseTo(0.06, 12);
    expect(adjusted[3]).toBeNull();
  });

  it('caps at 1 and leaves a single test as it is', () => {
    expect(holmAdjust([0.6, 0.7])).toEqual([1, 1]);
    expect(holmAdjust([0.02])).toEqual([0.02]);
    expect(holmAdjust([])).toEqual([]);
  });

  it('refuses a value that is not a p-value, naming it', () => {
    expect(() => holmAdjust([0.1, 1.5])).toThrow(/pValues\[1\]/);
  });
});

describe('bootstrapPValue', () => {
  it('is twice the smaller tail, counting zeros on both sides', () => {
    expect(bootstrapPValue({ below: 3, zero: 0, above: 97 })).toBeCloseTo(0.06, 12);
    expect(bootstrapPValue({ below: 0, zero: 100, above: 0 })).toBe(1);
    expect(bootstrapPValue({ below: 0, zero: 0, above: 2000 })).toBe(0);
    expect(bootstrapPValue({ below: 0, zero: 0, above: 0 })).toBeNull();
  });
});
