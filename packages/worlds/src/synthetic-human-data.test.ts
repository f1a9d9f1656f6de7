import { HumanDataRowSchema } from '@chi/spec';
import { PILOT_FEATURES } from '@chi/spec/internal';
import { describe, expect, it } from 'vitest';
import {
  PILOT_SYNTHETIC_HUMAN_MODEL,
  SYNTHETIC_HUMAN_DATA_HEADER,
  syntheticHumanData,
} from './synthetic-human-data';

describe('syntheticHumanData (SYNTHETIC: for tests and examples only)', () => {
  const rows = syntheticHumanData({ seed: 11, participants: 400 });

  it('is labelled synthetic and deterministic for a seed', () => {
    expect(SYNTHETIC_HUMAN_DATA_HEADER.synthetic).toBe(true);
    expect(SYNTHETIC_HUMAN_DATA_HEADER.description).toMatch(/^SYNTHETIC/);
    expect(syntheticHumanData({ seed: 11, participants: 400 })).toEqual(rows);
    expect(syntheticHumanData({ seed: 12, participants: 400 })).not.toEqual(rows);
  });

  it('writes one valid row per participant and pilot feature, value = mean of its halves', () => {
    expect(rows).toHaveLength(400 * PILOT_FEATURES.length);
    for (const row of rows.slice(0, 50)) {
      expect(HumanDataRowSchema.parse(row)).toEqual(row);
      const [a, b] = row.halves as [number, number];
      expect(row.value).toBe((a + b) / 2);
      expect(row.value).toBeGreaterThanOrEqual(0);
      expect(row.value).toBeLessThanOrEqual(1);
    }
    expect(PILOT_SYNTHETIC_HUMAN_MODEL.map((f) => `${f.axis}.${f.feature}.${f.test}`)).toEqual(
      PILOT_FEATURES.map((f) => `${f.axis}.${f.feature}.${f.test}`),
    );
  });

  it('follows its declared model: cohort means and the half-test correlation', () => {
    const values = (feature: string, cohort: string) =>
      rows
        .filter((r) => r.axis === 'R' && r.feature === feature && r.groups?.cohort === cohort)
        .map((r) => r.value);
    const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
    // R.accuracy: mean 0.75 in cohort a, 0.75 + 0.5 * 0.12 = 0.81 in cohort b (clamping aside).
    expect(mean(values('accuracy', 'a'))).toBeCloseTo(0.75, 1);
    expect(mean(values('accuracy', 'b'))).toBeGreaterThan(mean(values('accuracy', 'a')) + 0.03);
    // Halves share the trait: correlation near the declared 0.6.
    const pairs = rows
      .filter((r) => r.axis === 'C' && r.feature === 'accuracy')
      .map((r) => r.halves as [number, number]);
    const xs = pairs.map((p) => p[0]);
    const ys = pairs.map((p) => p[1]);
    const mx = mean(xs);
    const my = mean(ys);
    const cov = mean(xs.map((x, i) => (x - mx) * ((ys[i] as number) - my)));
    const sd = (zs: number[], m: number) => Math.sqrt(mean(zs.map((z) => (z - m) ** 2)));
    expect(cov / (sd(xs, mx) * sd(ys, my))).toBeGreaterThan(0.45);
    expect(cov / (sd(xs, mx) * sd(ys, my))).toBeLessThan(0.75);
  });

  it('refuses fewer than two participants', () => {
    expect(() => syntheticHumanData({ seed: 1, participants: 1 })).toThrow(/participants/);
  });
});
