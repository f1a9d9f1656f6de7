import {
  FACTOR_NAMES,
  InvalidArgumentError,
  type QualityAlphas,
  type QualityFactors,
} from '@chi/spec';

/** The baseline weights: 1/6 for each of r, t, s, u, i and 1 - f. */
export const EQUAL_ALPHAS: Readonly<QualityAlphas> = Object.freeze({
  r: 1 / 6,
  t: 1 / 6,
  s: 1 / 6,
  u: 1 / 6,
  i: 1 / 6,
  oneMinusF: 1 / 6,
});

/** Allowed distance of the alpha sum from 1. */
export const ALPHA_SUM_TOLERANCE = 1e-9;

function checkFactor(name: string, value: number): void {
  // `!(x >= 0 && x <= 1)` also rejects NaN and non-numbers.
  if (!(typeof value === 'number' && value >= 0 && value <= 1)) {
    throw new InvalidArgumentError(
      `factors.${name}`,
      `expected a number in [0, 1], found ${String(value)}`,
    );
  }
}

/** Throws `InvalidArgumentError` unless every alpha is in [0, 1] and they sum to 1 (within 1e-9). */
export function checkAlphas(alphas: QualityAlphas): void {
  if (typeof alphas !== 'object' || alphas === null) {
    throw new InvalidArgumentError(
      'alphas',
      `expected an object with the six alphas, found ${String(alphas)}`,
    );
  }
  let sum = 0;
  for (const name of FACTOR_NAMES) {
    const alpha = alphas[name];
    if (!(typeof alpha === 'number' && alpha >= 0 && alpha <= 1)) {
      throw new InvalidArgumentError(
        `alphas.${name}`,
        `expected a weight in [0, 1], found ${String(alpha)}`,
      );
    }
    sum += alpha;
  }
  if (!(Math.abs(sum - 1) <= ALPHA_SUM_TOLERANCE)) {
    throw new InvalidArgumentError(
      'alphas',
      `the six alphas must sum to 1 (tolerance 1e-9), found ${sum}`,
    );
  }
}

function logTerm(factor: number, alpha: number): number {
  if (alpha === 0) return 0;
  return factor === 0 ? Number.NEGATIVE_INFINITY : alpha * Math.log(factor);
}

function weightedLow(factor: number, alpha: number): number {
  return alpha === 0 ? 1 : factor;
}

function weightedHigh(factor: number, alpha: number): number {
  return alpha === 0 ? 0 : factor;
}

/**
 * Q_M from six bare numbers: the allocation-free kernel for bootstrap loops. Same rules as
 * {@link qualityScore}.
 *
 * @example
 * ```ts
 * qualityScoreOf(1, 1, 1, 1, 1, 0.5); // 0.5 ** (1 / 6) = 0.8908987181403393
 * ```
 */
export function qualityScoreOf(
  r: number,
  t: number,
  s: number,
  u: number,
  i: number,
  oneMinusF: number,
  alphas: QualityAlphas = EQUAL_ALPHAS,
): number {
  checkFactor('r', r);
  checkFactor('t', t);
  checkFactor('s', s);
  checkFactor('u', u);
  checkFactor('i', i);
  checkFactor('oneMinusF', oneMinusF);
  if (alphas !== EQUAL_ALPHAS) checkAlphas(alphas);

  // Weighted geometric mean in log space. A factor of exactly 0 with positive weight makes Q_M
  // exactly 0 (no epsilon floor); a factor with weight 0 does not take part (0^0 = 1).
  const logSum =
    logTerm(r, alphas.r) +
    logTerm(t, alphas.t) +
    logTerm(s, alphas.s) +
    logTerm(u, alphas.u) +
    logTerm(i, alphas.i) +
    logTerm(oneMinusF, alphas.oneMinusF);
  if (logSum === Number.NEGATIVE_INFINITY) return 0;
  // A weighted geometric mean lies in [min, max] of its weighted factors; clamping removes only
  // floating-point rounding (so six factors of 0.8 give exactly 0.8, not 0.7999999999999999).
  const low = Math.min(
    weightedLow(r, alphas.r),
    weightedLow(t, alphas.t),
    weightedLow(s, alphas.s),
    weightedLow(u, alphas.u),
    weightedLow(i, alphas.i),
    weightedLow(oneMinusF, alphas.oneMinusF),
  );
  const high = Math.max(
    weightedHigh(r, alphas.r),
    weightedHigh(t, alphas.t),
    weightedHigh(s, alphas.s),
    weightedHigh(u, alphas.u),
    weightedHigh(i, alphas.i),
    weightedHigh(oneMinusF, alphas.oneMinusF),
  );
  const value = Math.exp(logSum);
  return Math.min(high, Math.max(low, value));
}

/**
 * Q_M = prod over the six factors of factor^alpha, with alphas summing to 1 (default 1/6 each)
 * and no epsilon floor: a zero factor with positive weight gives exactly 0.
 *
 * @throws InvalidArgumentError naming the field when a factor is outside [0, 1] or NaN, an alpha
 *   is outside [0, 1], or the alphas do not sum to 1 within 1e-9.
 * @example
 * ```ts
 * qualityScore({ r: 1, t: 1, s: 1, u: 1, i: 1, oneMinusF: 0 }); // 0
 * qualityScore({ r: 0.8, t: 0.8, s: 0.8, u: 0.8, i: 0.8, oneMinusF: 0.8 }); // 0.8
 * ```
 */
export function qualityScore(
  factors: QualityFactors,
  alphas: QualityAlphas = EQUAL_ALPHAS,
): number {
  if (typeof factors !== 'object' || factors === null) {
    throw new InvalidArgumentError(
      'factors',
      `expected an object with the six factors, found ${String(factors)}`,
    );
  }
  return qualityScoreOf(
    factors.r,
    factors.t,
    factors.s,
    factors.u,
    factors.i,
    factors.oneMinusF,
    alphas,
  );
}
