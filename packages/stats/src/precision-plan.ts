import { InvalidArgumentError } from '@chi/spec';

/**
 * The standard normal quantile (inverse CDF) by Acklam's rational approximation: relative error
 * below 1.2e-9 over (0, 1), far below what a plan of worlds needs.
 *
 * @example
 * ```ts
 * normalQuantile(0.975); // 1.959963984540054
 * ```
 */
export function normalQuantile(p: number): number {
  if (!(p > 0 && p < 1)) {
    throw new InvalidArgumentError('p', `expected a probability in (0, 1), found ${p}`);
  }
  const a = [
    -39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716,
    2.506628277459239,
  ];
  const b = [
    -54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972,
    -13.28068155288572,
  ];
  const c = [
    -0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734,
    4.374664141464968, 2.938163982698783,
  ];
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];
  const low = 0.02425;
  let x: number;
  if (p < low || p > 1 - low) {
    const q = Math.sqrt(-2 * Math.log(p < low ? p : 1 - p));
    const v =
      (((((c[0]! * q + c[1]!) * q + c[2]!) * q + c[3]!) * q + c[4]!) * q + c[5]!) /
      ((((d[0]! * q + d[1]!) * q + d[2]!) * q + d[3]!) * q + 1);
    x = p < low ? v : -v;
  } else {
    const q = p - 0.5;
    const r = q * q;
    x =
      ((((((a[0]! * r + a[1]!) * r + a[2]!) * r + a[3]!) * r + a[4]!) * r + a[5]!) * q) /
      (((((b[0]! * r + b[1]!) * r + b[2]!) * r + b[3]!) * r + b[4]!) * r + 1);
  }
  return x;
}

function assertPositive(value: number, field: string): void {
  if (!(Number.isFinite(value) && value > 0)) {
    throw new InvalidArgumentError(field, `expected a positive number, found ${value}`);
  }
}

/**
 * Expected half-width of a two-sided interval at `level` for a mean over `worlds` independent
 * worlds whose world-level values have standard deviation `sd`: z_{(1+level)/2} · sd / √worlds
 * (the normal approximation the percentile bootstrap approaches).
 *
 * @example
 * ```ts
 * expectedHalfWidth({ sd: 0.5, worlds: 4, level: 0.95 }); // 0.48999 (1.95996 x 0.5 / 2)
 * ```
 */
export function expectedHalfWidth(args: {
  readonly sd: number;
  readonly worlds: number;
  readonly level: number;
}): number {
  assertPositive(args.worlds, 'worlds');
  if (!(args.sd >= 0)) throw new InvalidArgumentError('sd', `expected sd >= 0, found ${args.sd}`);
  return (normalQuantile((1 + args.level) / 2) * args.sd) / Math.sqrt(args.worlds);
}

/**
 * Worlds needed for an expected half-width of at most `halfWidth`: ⌈(z · sd / halfWidth)²⌉,
 * at least 2 (the protocol gives no interval below two worlds).
 *
 * @example
 * ```ts
 * worldsForHalfWidth({ sd: 0.5, halfWidth: 0.1, level: 0.95 }); // 97 ((9.79982)^2 = 96.04)
 * ```
 */
export function worldsForHalfWidth(args: {
  readonly sd: number;
  readonly halfWidth: number;
  readonly level: number;
}): number {
  assertPositive(args.halfWidth, 'halfWidth');
  const z = normalQuantile((1 + args.level) / 2);
  return Math.max(2, Math.ceil(((z * args.sd) / args.halfWidth) ** 2 - 1e-9));
}

/**
 * Minimum detectable paired difference: the true mean difference a two-sided test at `alpha`
 * detects with probability `power`, over `worlds` worlds whose per-world differences have
 * standard deviation `sdDifference`: (z_{1−alpha/2} + z_{power}) · sdDifference / √worlds.
 *
 * @example
 * ```ts
 * minimumDetectableDifference({ sdDifference: Math.SQRT1_2, worlds: 4, alpha: 0.05, power: 0.8 });
 * // 0.9906 ((1.95996 + 0.84162) x 0.70711 / 2)
 * ```
 */
export function minimumDetectableDifference(args: {
  readonly sdDifference: number;
  readonly worlds: number;
  readonly alpha: number;
  readonly power: number;
}): number {
  assertPositive(args.worlds, 'worlds');
  const z = normalQuantile(1 - args.alpha / 2) + normalQuantile(args.power);
  return (z * args.sdDifference) / Math.sqrt(args.worlds);
}

/**
 * Worlds needed to detect a paired difference of `difference` at `alpha` with `power`:
 * ⌈((z_{1−alpha/2} + z_{power}) · sdDifference / difference)²⌉, at least 2.
 *
 * @example
 * ```ts
 * worldsForDifference({ sdDifference: Math.SQRT1_2, difference: 0.1, alpha: 0.05, power: 0.8 });
 * // 393 ((2.80158 x 0.70711 / 0.1)^2 = 392.44)
 * ```
 */
export function worldsForDifference(args: {
  readonly sdDifference: number;
  readonly difference: number;
  readonly alpha: number;
  readonly power: number;
}): number {
  assertPositive(args.difference, 'difference');
  const z = normalQuantile(1 - args.alpha / 2) + normalQuantile(args.power);
  return Math.max(2, Math.ceil(((z * args.sdDifference) / args.difference) ** 2 - 1e-9));
}
