import { InvalidArgumentError } from '@chi/spec';
import { describe, expect, it } from 'vitest';
import {
  assertFiniteValues,
  assertFunction,
  assertLevel,
  assertPositiveInteger,
  assertResamples,
  assertSeed,
  describeValue,
  MAX_SEED,
} from './validation.js';

function fieldOf(run: () => void): string {
  try {
    run();
  } catch (error) {
    if (InvalidArgumentError.isInstance(error)) return error.field;
    throw error;
  }
  throw new Error('expected a InvalidArgumentError');
}

describe('describeValue', () => {
  it('renders what was found', () => {
    expect(describeValue(1.5)).toBe('1.5');
    expect(describeValue(-0)).toBe('-0');
    expect(describeValue(Number.NaN)).toBe('NaN');
    expect(describeValue('ten')).toBe('"ten"');
    expect(describeValue(undefined)).toBe('undefined');
    expect(describeValue(null)).toBe('null');
    expect(describeValue(true)).toBe('true');
    expect(describeValue(3n)).toBe('3n');
    expect(describeValue([1, 2])).toBe('an array of length 2');
    expect(describeValue(() => 1)).toBe('a function');
    expect(describeValue({})).toBe('an object');
  });
});

describe('assertSeed', () => {
  it('accepts unsigned 32-bit integers', () => {
    for (const seed of [0, 1, 20260901, MAX_SEED]) expect(() => assertSeed(seed)).not.toThrow();
  });

  it('rejects non-integers, negatives, values above 2^32 - 1 and non-numbers', () => {
    for (const seed of [1.5, -1, MAX_SEED + 1, Number.NaN, '1', undefined]) {
      expect(fieldOf(() => assertSeed(seed))).toBe('seed');
    }
    expect(() => assertSeed(1.5)).toThrow('seed: expected an integer from 0 to 4294967295');
  });
});

describe('assertResamples', () => {
  it('accepts integers >= 1 and rejects the rest', () => {
    expect(() => assertResamples(1)).not.toThrow();
    expect(() => assertResamples(2000)).not.toThrow();
    for (const value of [0, -5, 2.5, Number.POSITIVE_INFINITY, '2000']) {
      expect(fieldOf(() => assertResamples(value))).toBe('resamples');
    }
    expect(() => assertResamples(0)).toThrow('resamples: expected an integer >= 1, found 0');
  });
});

describe('assertLevel', () => {
  it('accepts levels strictly inside (0, 1)', () => {
    for (const level of [0.5, 0.95, 1e-9, 1 - 1e-9]) expect(() => assertLevel(level)).not.toThrow();
  });

  it('rejects 0, 1, outside values, NaN and non-numbers', () => {
    for (const level of [0, 1, -0.1, 95, Number.NaN, '0.95', null]) {
      expect(fieldOf(() => assertLevel(level))).toBe('level');
    }
    expect(() => assertLevel(95)).toThrow('level: expected a number strictly between 0 and 1');
  });
});

describe('assertPositiveInteger / assertFunction / assertFiniteValues', () => {
  it('name the field they check', () => {
    expect(fieldOf(() => assertPositiveInteger(0, 'width'))).toBe('width');
    expect(fieldOf(() => assertFunction(42, 'statistic'))).toBe('statistic');
    expect(fieldOf(() => assertFiniteValues([1, Number.NaN], 'values'))).toBe('values[1]');
    expect(fieldOf(() => assertFiniteValues([Number.NEGATIVE_INFINITY], 'values'))).toBe(
      'values[0]',
    );
    expect(() => assertFiniteValues([1, 2], 'values')).not.toThrow();
  });
});
