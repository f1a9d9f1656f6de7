import { InvalidArgumentError } from '@chi/spec';

/** Largest accepted analysis seed: seeds are unsigned 32-bit integers (see README, "Randomness"). */
export const MAX_SEED = 0xffff_ffff;

/** Renders a found value for an error message: `1.5`, `NaN`, `"ten"`, `undefined`, `an object`. */
export function describeValue(value: unknown): string {
  if (typeof value === 'number') return Object.is(value, -0) ? '-0' : String(value);
  if (typeof value === 'string') return JSON.stringify(value);
  if (value === null || value === undefined || typeof value === 'boolean') return String(value);
  if (typeof value === 'bigint') return `${value}n`;
  if (Array.isArray(value)) return `an array of length ${value.length}`;
  if (typeof value === 'function') return 'a function';
  return `an object`;
}

/** The analysis seed: an integer in [0, 2^32 - 1], so distinct seeds never alias one generator. */
export function assertSeed(seed: unknown, field = 'seed'): asserts seed is number {
  if (typeof seed !== 'number' || !Number.isInteger(seed) || seed < 0 || seed > MAX_SEED) {
    throw new InvalidArgumentError(
      field,
      `expected an integer from 0 to ${MAX_SEED} (an unsigned 32-bit analysis seed), found ${describeValue(seed)}`,
    );
  }
}

/** A count of bootstrap replicates: a safe integer >= 1. */
export function assertResamples(
  resamples: unknown,
  field = 'resamples',
): asserts resamples is number {
  if (typeof resamples !== 'number' || !Number.isSafeInteger(resamples) || resamples < 1) {
    throw new InvalidArgumentError(
      field,
      `expected an integer >= 1, found ${describeValue(resamples)}`,
    );
  }
}

/** A confidence level strictly between 0 and 1, e.g. 0.95. */
export function assertLevel(level: unknown, field = 'level'): asserts level is number {
  if (typeof level !== 'number' || !(level > 0 && level < 1)) {
    throw new InvalidArgumentError(
      field,
      `expected a number strictly between 0 and 1 (e.g. 0.95), found ${describeValue(level)}`,
    );
  }
}

/** A count of rows or columns: an integer >= 1. */
export function assertPositiveInteger(value: unknown, field: string): asserts value is number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
    throw new InvalidArgumentError(
      field,
      `expected an integer >= 1, found ${describeValue(value)}`,
    );
  }
}

/** A function argument, e.g. the bootstrap statistic. */
export function assertFunction(value: unknown, field: string): void {
  if (typeof value !== 'function') {
    throw new InvalidArgumentError(field, `expected a function, found ${describeValue(value)}`);
  }
}

/** Every element of `values` is a finite number; names the first offender by index. */
export function assertFiniteValues(values: ArrayLike<unknown>, field: string): void {
  for (let index = 0; index < values.length; index++) {
    const value = values[index];
    if (typeof value !== 'number' || !Number.isFinite(value)) {
      throw new InvalidArgumentError(
        `${field}[${index}]`,
        `expected a finite number, found ${describeValue(value)}`,
      );
    }
  }
}
