import { describe, expect, it } from 'vitest';
import { chi } from './chi';
import { similarityFromDistances } from './similarity-transform';

describe('similarityFromDistances', () => {
  it('matches the hand-worked values of each declared transform', () => {
    // d = (1, -1): mean d^2 = 1, mean |d| = 1.
    expect(similarityFromDistances([1, -1], 'gaussian')).toBe(Math.exp(-0.5));
    expect(similarityFromDistances([1, -1], 'laplace')).toBe(Math.exp(-1));
    expect(similarityFromDistances([1, -1], 'cauchy')).toBe(1 / 1.5);
    // d = (2, 0): mean d^2 = 2, mean |d| = 1.
    expect(similarityFromDistances([2, 0], 'gaussian')).toBe(Math.exp(-1));
    expect(similarityFromDistances([2, 0], 'laplace')).toBe(Math.exp(-1));
    expect(similarityFromDistances([2, 0], 'cauchy')).toBe(0.5);
    for (const transform of ['gaussian', 'laplace', 'cauchy'] as const)
      expect(similarityFromDistances([0, 0], transform)).toBe(1);
  });

  it('refuses an unknown transform and empty distances', () => {
    expect(() => similarityFromDistances([1], 'cosine' as never)).toThrow(/gaussian, laplace/);
    expect(() => similarityFromDistances([])).toThrow(/at least one/);
  });

  it('changes CHI through chi(..., transform): one axis at distance 2', () => {
    const calibration = {
      id: 'synthetic-transform-test',
      description: 'SYNTHETIC',
      synthetic: true,
      axes: { R: { x: { mu: 0, s: 1 } } },
    };
    const profile = { axes: { R: { x: 2 } } };
    expect(chi(profile, calibration, { R: 1 }).value).toBeCloseTo(100 * Math.exp(-2), 12);
    expect(chi(profile, calibration, { R: 1 }, 'laplace').value).toBeCloseTo(
      100 * Math.exp(-2),
      12,
    );
    expect(chi(profile, calibration, { R: 1 }, 'cauchy').value).toBeCloseTo(100 / 3, 12);
  });
});
