import { InvalidArgumentError } from '@chi/spec';
import type { Ratio } from '@chi/spec/internal';

/**
 * A rate with the numbers it came from; `rate` is null when the denominator is 0.
 *
 * @example
 * ```ts
 * ratio(3, 8); // { numerator: 3, denominator: 8, rate: 0.375 }
 * ratio(0, 0); // { numerator: 0, denominator: 0, rate: null }
 * ```
 */
export function ratio(numerator: number, denominator: number): Ratio {
  if (!Number.isInteger(denominator) || denominator < 0) {
    throw new InvalidArgumentError(
      'denominator',
      `expected a non-negative integer, found ${denominator}`,
    );
  }
  if (!Number.isInteger(numerator) || numerator < 0 || numerator > denominator) {
    throw new InvalidArgumentError(
      'numerator',
      `expected an integer in [0, ${denominator}], found ${numerator}`,
    );
  }
  return { numerator, denominator, rate: denominator === 0 ? null : numerator / denominator };
}
