import {
  type CapacityCurve,
  InvalidArgumentError,
  type MemoryScore,
  type QualityAlphas,
  type QualityFactors,
  type WithinWorldQualityCurve,
} from '@chi/spec';
import { isList } from './guards';
import { meanFactors } from './mean-factors';
import { EQUAL_ALPHAS, qualityScore } from './quality-score';

/** The scores of every world at one tested load. */
export interface LoadScores {
  /** Number of target keys N. */
  readonly load: number;
  /** One score per world (from `scoreMemoryProbes`). */
  readonly worlds: readonly MemoryScore[];
}

function checkedLoads(perLoad: readonly LoadScores[]): LoadScores[] {
  if (!isList(perLoad) || perLoad.length === 0) {
    throw new InvalidArgumentError('perLoad', 'expected at least one tested load, found none');
  }
  const seen = new Set<number>();
  perLoad.forEach((point, index) => {
    if (!Number.isInteger(point.load) || point.load < 1) {
      throw new InvalidArgumentError(
        `perLoad[${index}].load`,
        `expected a positive integer load, found ${String(point.load)}`,
      );
    }
    if (seen.has(point.load)) {
      throw new InvalidArgumentError(
        `perLoad[${index}].load`,
        `load ${point.load} is listed twice`,
      );
    }
    seen.add(point.load);
    if (!isList(point.worlds) || point.worlds.length === 0) {
      throw new InvalidArgumentError(
        `perLoad[${index}].worlds`,
        `load ${point.load} has no world scores`,
      );
    }
    point.worlds.forEach((world, w) => {
      if (world.qualityScore === null) {
        throw new InvalidArgumentError(
          `perLoad[${index}].worlds[${w}]`,
          `world score at load ${point.load} has a stratum without probes (qualityScore null): its factors are placeholders`,
        );
      }
    });
  });
  return [...perLoad].sort((a, b) => a.load - b.load);
}

/**
 * The primary Memory Capacity Curve: at each load, Q_M of the equally weighted world-mean factors
 * (the pilot's primary estimand), with those mean factors and the number of worlds. Points come
 * back in increasing load order.
 *
 * @throws InvalidArgumentError when a load is repeated or not a positive integer, a load has no
 *   worlds, or a world score has `qualityScore: null` (a stratum without probes).
 * @example
 * ```ts
 * const curve = capacityCurve([{ load: 32, worlds: scores32 }, { load: 64, worlds: scores64 }]);
 * eimc(curve, 0.8);
 * ```
 */
export function capacityCurve(
  perLoad: readonly LoadScores[],
  alphas: QualityAlphas = EQUAL_ALPHAS,
): CapacityCurve {
  return checkedLoads(perLoad).map((point) => {
    const factors: QualityFactors = meanFactors(point.worlds.map((world) => world.factors));
    return {
      load: point.load,
      qualityScore: qualityScore(factors, alphas),
      factors,
      worlds: point.worlds.length,
    };
  });
}

/**
 * The secondary curve, labelled `mean_within_world_quality_score`: at each load, the mean over
 * worlds of each world's own Q_M (recomputed from its factors with `alphas`). Q_M is concave in
 * its factors, so this is never above the primary value at the same load; it is reported beside
 * the primary curve, never used for EIMC.
 */
export function meanWithinWorldCurve(
  perLoad: readonly LoadScores[],
  alphas: QualityAlphas = EQUAL_ALPHAS,
): WithinWorldQualityCurve {
  return checkedLoads(perLoad).map((point) => {
    let sum = 0;
    for (const world of point.worlds) sum += qualityScore(world.factors, alphas);
    const mean = sum / point.worlds.length;
    return {
      estimand: 'mean_within_world_quality_score',
      load: point.load,
      meanWithinWorldQualityScore: Math.min(1, Math.max(0, mean)),
      worlds: point.worlds.length,
    };
  });
}
