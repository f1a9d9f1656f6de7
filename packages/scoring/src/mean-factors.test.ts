import { describe, expect, it } from 'vitest';
import { meanFactors } from './mean-factors';

describe('meanFactors', () => {
  it('averages each factor with every world weighted equally', () => {
    expect(
      meanFactors([
        { r: 1, t: 1, s: 1, u: 1, i: 1, oneMinusF: 1 },
        { r: 0, t: 1, s: 1, u: 1, i: 1, oneMinusF: 0.5 },
        { r: 0.5, t: 0.25, s: 1, u: 1, i: 0.5, oneMinusF: 0 },
      ]),
    ).toEqual({ r: 0.5, t: 0.75, s: 1, u: 1, i: 2.5 / 3, oneMinusF: 0.5 });
  });

  it('rejects an empty list and out-of-range factors, naming the world', () => {
    expect(() => meanFactors([])).toThrow(
      "perWorld: expected at least one world's factors, found none",
    );
    expect(() =>
      meanFactors([
        { r: 1, t: 1, s: 1, u: 1, i: 1, oneMinusF: 1 },
        { r: 1, t: 1, s: 1, u: 1, i: 2, oneMinusF: 1 },
      ]),
    ).toThrow('perWorld[1].i: expected a number in [0, 1], found 2');
  });
});
