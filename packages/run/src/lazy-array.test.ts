import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { lazyArray } from './lazy-array';

/** A lazy array over `values` that records every index it asks `at` for. */
function counted(values: readonly number[]): { array: readonly number[]; asked: number[] } {
  const asked: number[] = [];
  const array = lazyArray(
    values.length,
    (index) => {
      asked.push(index);
      return values[index] as number;
    },
    'read-only here',
  );
  return { array, asked };
}

describe('lazyArray', () => {
  it('reads as the array it stands for, through every array method the report uses', () => {
    fc.assert(
      fc.property(fc.array(fc.integer()), (values) => {
        const { array } = counted(values);
        expect(array.length).toBe(values.length);
        expect([...array]).toEqual(values);
        expect(array.map((v) => v * 2)).toEqual(values.map((v) => v * 2));
        expect(array.filter((v) => v > 0)).toEqual(values.filter((v) => v > 0));
        expect(Object.keys(array)).toEqual(Object.keys(values));
        expect(JSON.stringify(array)).toBe(JSON.stringify(values));
        expect(Array.isArray(array)).toBe(true);
        expect(array[values.length]).toBeUndefined();
      }),
    );
  });

  it('keeps the last element asked for, and only that one', () => {
    const { array, asked } = counted([10, 20, 30]);
    expect(array[1]).toBe(20);
    expect(array[1]).toBe(20);
    expect(asked).toEqual([1]);
    expect(array[2]).toBe(30);
    expect(array[1]).toBe(20);
    expect(asked).toEqual([1, 2, 1]);
  });

  it('refuses every write with the TypeError it was given', () => {
    const { array } = counted([1, 2]);
    const writable = array as number[];
    expect(() => {
      writable[0] = 5;
    }).toThrow(new TypeError('read-only here'));
    expect(() => writable.push(3)).toThrow(TypeError);
    expect(() => {
      delete writable[0];
    }).toThrow(new TypeError('read-only here'));
    expect([...array]).toEqual([1, 2]);
  });
});
