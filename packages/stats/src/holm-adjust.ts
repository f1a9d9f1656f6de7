import { InvalidArgumentError } from '@chi/spec';

/**
 * Holm's step-down adjustment of a family of p-values (Holm 1979): sort the m defined p-values
 * ascending, p_(1) <= ... <= p_(m); the adjusted value of the k-th is
 * max over j <= k of min(1, (m - j + 1) p_(j)). Rejecting where the adjusted value is below alpha
 * controls the family-wise error rate at alpha under any dependence between the tests. `null`
 * entries (no test) are kept as null and do not count in m. Ties keep their input order.
 *
 * @throws InvalidArgumentError when a p-value is not a number in [0, 1].
 *
 * @example
 * ```ts
 * holmAdjust([0.01, 0.04, 0.03, null]); // [0.03, 0.06, 0.06, null]
 * ```
 */
export function holmAdjust(pValues: readonly (number | null)[]): (number | null)[] {
  const defined: { index: number; p: number }[] = [];
  pValues.forEach((p, index) => {
    if (p === null) return;
    if (typeof p !== 'number' || !(p >= 0 && p <= 1)) {
      throw new InvalidArgumentError(
        `pValues[${index}]`,
        `expected a p-value in [0, 1], found ${p}`,
      );
    }
    defined.push({ index, p });
  });
  const order = defined.slice().sort((a, b) => a.p - b.p || a.index - b.index);
  const adjusted: (number | null)[] = pValues.map(() => null);
  const m = order.length;
  let running = 0;
  order.forEach(({ index, p }, rank) => {
    running = Math.max(running, Math.min(1, (m - rank) * p));
    adjusted[index] = running;
  });
  return adjusted;
}

/**
 * The two-sided bootstrap p-value of "the difference is zero" from the replicates' signs:
 * 2 min(#{d* <= 0}, #{d* >= 0}) / B over the B defined replicates, capped at 1 — the level at
 * which the equal-tailed percentile interval just reaches 0. Null without a defined replicate.
 *
 * @example
 * ```ts
 * bootstrapPValue({ below: 3, zero: 0, above: 97 }); // 0.06
 * ```
 */
export function bootstrapPValue(signs: {
  readonly below: number;
  readonly zero: number;
  readonly above: number;
}): number | null {
  const total = signs.below + signs.zero + signs.above;
  if (total === 0) return null;
  return Math.min(1, (2 * Math.min(signs.below + signs.zero, signs.above + signs.zero)) / total);
}
