import { InvalidArgumentError } from '@chi/spec';
import { describe, expect, it } from 'vitest';
import {
  expectedHalfWidth,
  minimumDetectableDifference,
  normalQuantile,
  worldsForDifference,
  worldsForHalfWidth,
} from './precision-plan.js';

describe('normalQuantile', () => {
  it('gives the familiar quantiles', () => {
    expect(normalQuantile(0.975)).toBeCloseTo(1.959963984540054, 8);
    expect(normalQuantile(0.8)).toBeCloseTo(0.8416212335729143, 8);
    expect(normalQuantile(0.5)).toBeCloseTo(0, 12);
    expect(normalQuantile(0.001)).toBeCloseTo(-3.090232306167813, 7);
  });

  it('refuses a probability outside (0, 1)', () => {
    expect(() => normalQuantile(1)).toThrow(InvalidArgumentError);
  });
});

describe('precision arithmetic (hand-worked)', () => {
  // binomial worst case: a world-level proportion has sd at most sqrt(0.5 x 0.5) = 0.5
  it('half-width of a mean over 4 worlds: 1.96 x 0.5 / 2 = 0.49', () => {
    expect(expectedHalfWidth({ sd: 0.5, worlds: 4, level: 0.95 })).toBeCloseTo(0.48999, 5);
    expect(expectedHalfWidth({ sd: 0.5, worlds: 100, level: 0.95 })).toBeCloseTo(0.098, 4);
  });

  it('worlds for a half-width of 0.1: (1.96 x 0.5 / 0.1)^2 = 96.04, so 97', () => {
    expect(worldsForHalfWidth({ sd: 0.5, halfWidth: 0.1, level: 0.95 })).toBe(97);
    // and 97 worlds reach it while 96 do not
    expect(expectedHalfWidth({ sd: 0.5, worlds: 97, level: 0.95 })).toBeLessThanOrEqual(0.1);
    expect(expectedHalfWidth({ sd: 0.5, worlds: 96, level: 0.95 })).toBeGreaterThan(0.1);
  });

  it('minimum detectable paired difference over 4 worlds: 2.8016 x 0.7071 / 2 = 0.9906', () => {
    const mdd = minimumDetectableDifference({
      sdDifference: Math.SQRT1_2,
      worlds: 4,
      alpha: 0.05,
      power: 0.8,
    });
    expect(mdd).toBeCloseTo(0.99051, 4);
  });

  it('worlds to detect a paired difference of 0.1: (2.8016 x 0.7071 / 0.1)^2 = 392.4, so 393', () => {
    const worlds = worldsForDifference({
      sdDifference: Math.SQRT1_2,
      difference: 0.1,
      alpha: 0.05,
      power: 0.8,
    });
    expect(worlds).toBe(393);
    expect(
      minimumDetectableDifference({ sdDifference: Math.SQRT1_2, worlds, alpha: 0.05, power: 0.8 }),
    ).toBeLessThanOrEqual(0.1);
  });

  it('never plans fewer than two worlds, and names a bad argument', () => {
    expect(worldsForHalfWidth({ sd: 0.01, halfWidth: 0.5, level: 0.95 })).toBe(2);
    expect(() => worldsForHalfWidth({ sd: 0.5, halfWidth: 0, level: 0.95 })).toThrow(/halfWidth/);
    expect(() => expectedHalfWidth({ sd: 0.5, worlds: 0, level: 0.95 })).toThrow(/worlds/);
  });
});
