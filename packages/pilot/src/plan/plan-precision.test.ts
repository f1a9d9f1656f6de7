import { describe, expect, it } from 'vitest';
import { binomialWorstCase, formatPlanPrecision, planPrecision } from './plan-precision';

describe('planPrecision (binomial worst case, hand-worked)', () => {
  const plan = planPrecision({
    worlds: 4,
    level: 0.95,
    targetHalfWidth: 0.1,
    model: binomialWorstCase(),
  });

  it('Q_M per load over 4 worlds: ±1.96 x 0.5 / 2 = ±0.490; 97 worlds for ±0.1', () => {
    const row = plan.rows.find((r) => r.quantity === 'Q_M per load');
    expect(row?.halfWidth).toBeCloseTo(0.49, 3);
    expect(row?.worldsForTarget).toBe(97);
    // paired sd sqrt(0.5): (1.96 + 0.8416) x 0.7071 / 2 = 0.9905; 393 worlds for an MDD of 0.1
    expect(row?.minimumDetectableDifference).toBeCloseTo(0.9905, 3);
    expect(row?.worldsForTargetDifference).toBe(393);
  });

  it('excess divergence (a difference of two proportions): sd 0.7071, ±0.693, 193 worlds', () => {
    const row = plan.rows.find((r) => r.quantity === 'excess divergence');
    expect(row?.sd).toBeCloseTo(Math.SQRT1_2, 12);
    expect(row?.halfWidth).toBeCloseTo((1.96 * Math.SQRT1_2) / 2, 3);
    // (1.96 x 0.7071 / 0.1)^2 = 192.08
    expect(row?.worldsForTarget).toBe(193);
  });

  it('prints every headline quantity and the variance model', () => {
    const text = formatPlanPrecision(plan);
    expect(text).toContain('binomial worst case');
    expect(text).toMatch(/Q_M per load\s+0\.500\s+0\.490\s+97\s+0\.991\s+393/);
    expect(text).toContain('behavior indicator');
    expect(text).toContain('excess divergence');
  });
});
