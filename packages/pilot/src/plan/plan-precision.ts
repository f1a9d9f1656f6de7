import {
  expectedHalfWidth,
  minimumDetectableDifference,
  worldsForDifference,
  worldsForHalfWidth,
} from '@chi/stats';

/** The default target half-width of `--plan` (`--target-half-width`). */
export const DEFAULT_TARGET_HALF_WIDTH = 0.1;

/** Power and two-sided alpha of the minimum detectable paired difference. */
export const PLAN_POWER = 0.8;
/** Two-sided alpha of the minimum detectable paired difference. */
export const PLAN_ALPHA = 0.05;

/** A headline number's world-level spread under the declared variance model. */
export interface QuantitySpread {
  /** e.g. `Q_M per load`. */
  readonly quantity: string;
  /** Standard deviation of the world-level value. */
  readonly sd: number;
  /** Standard deviation of the per-world difference between two systems. */
  readonly sdDifference: number;
}

/** The declared variance model: where the spreads come from, and the spreads. */
export interface VarianceModel {
  readonly source: string;
  readonly quantities: readonly QuantitySpread[];
}

/**
 * The binomial worst case: every headline number is a mean over worlds of a world-level
 * proportion in [0, 1] (Q_M, a behavior indicator) or a difference of two (the excess divergence
 * D(A,B) − D(A,A2)); a proportion's variance is at most 0.5 x 0.5. Two systems' values are taken
 * as uncorrelated within a world (no credit for pairing), so a paired difference has variance
 * var(A) + var(B).
 */
export function binomialWorstCase(): VarianceModel {
  const proportion = 0.5;
  const difference = Math.sqrt(2 * proportion ** 2);
  return {
    source: 'binomial worst case (p = 0.5 per world-level proportion; systems uncorrelated)',
    quantities: [
      { quantity: 'Q_M per load', sd: proportion, sdDifference: difference },
      {
        quantity: 'excess divergence',
        sd: difference,
        sdDifference: Math.sqrt(2) * difference,
      },
      { quantity: 'behavior indicator', sd: proportion, sdDifference: difference },
    ],
  };
}

/** What the plan can resolve for one headline number. */
export interface PlannedPrecision {
  readonly quantity: string;
  readonly sd: number;
  /** Expected half-width of its interval over the planned worlds. */
  readonly halfWidth: number;
  /** Worlds needed for the target half-width. */
  readonly worldsForTarget: number;
  /** Minimum detectable paired difference over the planned worlds (80% power, alpha 0.05). */
  readonly minimumDetectableDifference: number;
  /** Worlds needed to detect a paired difference equal to the target. */
  readonly worldsForTargetDifference: number;
}

/** The precision part of `chi pilot --plan`. */
export interface PlanPrecision {
  readonly worlds: number;
  readonly level: number;
  readonly targetHalfWidth: number;
  readonly model: VarianceModel;
  readonly rows: readonly PlannedPrecision[];
}

/**
 * What `worlds` planned worlds can resolve under `model`: the formulas of docs/protocol.md
 * ("Precision in the plan"), from `@chi/stats`.
 */
export function planPrecision(args: {
  readonly worlds: number;
  readonly level: number;
  readonly targetHalfWidth: number;
  readonly model: VarianceModel;
}): PlanPrecision {
  const { worlds, level, targetHalfWidth, model } = args;
  const test = { alpha: PLAN_ALPHA, power: PLAN_POWER };
  return {
    worlds,
    level,
    targetHalfWidth,
    model,
    rows: model.quantities.map((q) => ({
      quantity: q.quantity,
      sd: q.sd,
      halfWidth: expectedHalfWidth({ sd: q.sd, worlds, level }),
      worldsForTarget: worldsForHalfWidth({ sd: q.sd, halfWidth: targetHalfWidth, level }),
      minimumDetectableDifference: minimumDetectableDifference({
        sdDifference: q.sdDifference,
        worlds,
        ...test,
      }),
      worldsForTargetDifference: worldsForDifference({
        sdDifference: q.sdDifference,
        difference: targetHalfWidth,
        ...test,
      }),
    })),
  };
}

/** The precision table of `--plan`, as text. */
export function formatPlanPrecision(plan: PlanPrecision): string {
  const level = `${Math.round(plan.level * 100)}%`;
  const target = plan.targetHalfWidth;
  return [
    `Precision with ${plan.worlds} planned world(s), ${level} intervals; variance model: ${plan.model.source}.`,
    `quantity              world sd   expected ±   worlds for ±${target}   paired MDD (80% power, alpha 0.05)   worlds for MDD ${target}`,
    ...plan.rows.map(
      (row) =>
        `${row.quantity.padEnd(21)} ${row.sd.toFixed(3).padStart(8)}   ${row.halfWidth.toFixed(3).padStart(10)}   ${String(row.worldsForTarget).padStart(14)}   ${row.minimumDetectableDifference.toFixed(3).padStart(34)}   ${String(row.worldsForTargetDifference).padStart(14)}`,
    ),
    'MDD: the smallest true paired difference between two systems a two-sided test at alpha 0.05 detects with 80% power; below 30 worlds every interval is exploratory.',
  ].join('\n');
}
