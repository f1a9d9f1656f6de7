import { FACTOR_NAMES, InvalidArgumentError, type QualityFactors } from '@chi/spec';
import { isList } from './guards';

/**
 * The equally weighted mean of each factor over worlds (each world counts once, whatever its
 * size): the input of the primary capacity curve, Q_M of world-mean factors.
 *
 * @throws InvalidArgumentError when `perWorld` is empty or a factor is outside [0, 1] or NaN
 *   (the message names `perWorld[k].factor`).
 * @example
 * ```ts
 * meanFactors([
 *   { r: 1, t: 1, s: 1, u: 1, i: 1, oneMinusF: 1 },
 *   { r: 0, t: 1, s: 1, u: 1, i: 1, oneMinusF: 0.5 },
 * ]); // { r: 0.5, t: 1, s: 1, u: 1, i: 1, oneMinusF: 0.75 }
 * ```
 */
export function meanFactors(perWorld: readonly QualityFactors[]): QualityFactors {
  if (!isList(perWorld) || perWorld.length === 0) {
    throw new InvalidArgumentError('perWorld', "expected at least one world's factors, found none");
  }
  const sums: QualityFactors = { r: 0, t: 0, s: 0, u: 0, i: 0, oneMinusF: 0 };
  perWorld.forEach((factors, index) => {
    for (const name of FACTOR_NAMES) {
      const value = factors?.[name];
      if (!(typeof value === 'number' && value >= 0 && value <= 1)) {
        throw new InvalidArgumentError(
          `perWorld[${index}].${name}`,
          `expected a number in [0, 1], found ${String(value)}`,
        );
      }
      sums[name] += value;
    }
  });
  const count = perWorld.length;
  return {
    r: sums.r / count,
    t: sums.t / count,
    s: sums.s / count,
    u: sums.u / count,
    i: sums.i / count,
    oneMinusF: sums.oneMinusF / count,
  };
}
