import { type ChisEntry, ChisEntrySchema, InvalidArgumentError } from '@chi/spec';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import { describe, expect, it } from 'vitest';
import { continuity } from './continuity';
import { drift } from './drift';
import { experienceDivergence } from './experience-divergence';
import { hysteresis } from './hysteresis';
import { memoryAccumulation } from './memory-accumulation';
import { plasticity } from './plasticity';
import { recovery } from './recovery';
import { stability } from './stability';
import {
  generateSyntheticTrajectories,
  SYNTHETIC_ROLES,
  type SyntheticTrajectories,
  type SyntheticTrajectoryOptions,
} from './synthetic-trajectories';

const planted: SyntheticTrajectoryOptions = {
  seed: 2026,
  baseline: 0.3,
  driftRate: 0.01,
  interventionEffect: 0.2,
  noise: 0,
  fault: { at: 3, size: 0.3, recoveryFraction: 0.75 },
  pathDependence: 0.08,
  historyEffect: 0.15,
  accumulationRate: 2,
  lastCheckpoint: 6,
};

/** Every dynamic of every replicate, computed the way a report would. */
function measure(generated: SyntheticTrajectories) {
  const byId = new Map<string, ChisEntry[]>();
  for (const entry of generated.entries)
    byId.set(entry.trajectoryId, [...(byId.get(entry.trajectoryId) ?? []), entry]);
  const last = generated.groundTruth.planted.lastCheckpoint;
  const perReplicate = generated.replicates.map(({ trajectoryIds: ids }) => {
    const of = (role: (typeof SYNTHETIC_ROLES)[number]) => byId.get(ids[role])!;
    const stabilityResult = stability(of('control'));
    return {
      continuity: continuity(of('control')).value!,
      drift: drift(of('control')).value!,
      driftPerEvent: drift(of('control')).perEvent!,
      plasticity: plasticity(of('intervention'), of('control')).value!,
      stability: stabilityResult.value!,
      stabilityVariance:
        stabilityResult.coordinateSds!.reduce((sum, sd) => sum + sd ** 2, 0) /
        stabilityResult.coordinateSds!.length,
      recovery: recovery(of('fault')).value!,
      hysteresis: hysteresis(of('control'), of('reversal')).value!,
      memoryAccumulation: memoryAccumulation(of('control'), { feature: 'usableItems' }).value!,
    };
  });
  const triples = generated.replicates.map(({ trajectoryIds: ids }) => ({
    a: byId.get(ids['history-A'])!,
    b: byId.get(ids['history-B'])!,
    a2: byId.get(ids['history-A2'])!,
  }));
  const divergence = experienceDivergence(triples, { checkpoint: last });
  const mean = (key: keyof (typeof perReplicate)[number]) =>
    perReplicate.reduce((sum, values) => sum + values[key], 0) / perReplicate.length;
  return {
    continuity: mean('continuity'),
    drift: mean('drift'),
    driftPerEvent: mean('driftPerEvent'),
    plasticity: mean('plasticity'),
    stability: mean('stability'),
    stabilityVariance: mean('stabilityVariance'),
    recovery: mean('recovery'),
    hysteresis: mean('hysteresis'),
    memoryAccumulation: mean('memoryAccumulation'),
    divergence,
  };
}

/** E|X| for X ~ Normal(mu, s^2) (folded normal mean); erf by Abramowitz-Stegun 7.1.26 (|error| < 1.5e-7). */
function foldedNormalMean(mu: number, s: number): number {
  const erf = (x: number) => {
    const t = 1 / (1 + 0.3275911 * Math.abs(x));
    const y =
      1 -
      ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) *
        t *
        Math.exp(-x * x);
    return Math.sign(x) * y;
  };
  return (
    s * Math.sqrt(2 / Math.PI) * Math.exp(-(mu * mu) / (2 * s * s)) +
    mu * erf(mu / (s * Math.SQRT2))
  );
}

describe('generateSyntheticTrajectories', () => {
  it('produces valid CHIS entries labelled synthetic, seven trajectories per replicate', () => {
    const generated = generateSyntheticTrajectories({ ...planted, noise: 0.02, replicates: 2 });
    expect(generated.entries).toHaveLength(2 * SYNTHETIC_ROLES.length * 7);
    for (const entry of generated.entries) {
      expect(ChisEntrySchema.parse(entry)).toEqual(entry);
      expect(entry.evidenceClass).toBe('synthetic');
      expect(entry.chi).toBeNull();
    }
    expect(generated.replicates[1]).toEqual({
      index: 1,
      worldSeed: 1,
      trajectoryIds: Object.fromEntries(
        SYNTHETIC_ROLES.map((role) => [role, `synthetic-s2026-r1-${role}`]),
      ),
    });
    const reversal = generated.entries.filter(
      (e) => e.trajectoryId === 'synthetic-s2026-r0-reversal',
    );
    expect(reversal.map((e) => e.condition)).toEqual([
      'baseline',
      'neutral',
      'intervention',
      'reversal',
      'neutral',
      'neutral',
      'neutral',
    ]);
    const historyB = generated.entries.filter(
      (e) => e.trajectoryId === 'synthetic-s2026-r0-history-B',
    );
    expect(historyB.map((e) => e.history)).toEqual(Array(7).fill('B'));
    expect(historyB[1]?.condition).toBe('history');
  });

  it('is deterministic for a seed and pinned to its documented draws', () => {
    const options = { ...planted, noise: 0.02 };
    const first = generateSyntheticTrajectories(options);
    expect(generateSyntheticTrajectories(options)).toEqual(first);
    expect(
      generateSyntheticTrajectories({ ...options, seed: 2027 }).entries[1]?.decisionVector,
    ).not.toEqual(first.entries[1]?.decisionVector);
    // Golden values: a change here means the derivation or draw order changed (a breaking change).
    expect(first.entries[0]?.decisionVector).toMatchInlineSnapshot(`
      [
        0.28457212711218743,
        0.2870223396271467,
        0.33240072993095965,
        0.28718252829276025,
      ]
    `);
    expect(first.entries[0]?.profile.usableItems).toMatchInlineSnapshot(`0.009410897241905332`);
    // The documented derivation, written out independently: jump once, z = sum of 12 uniforms - 6.
    const rng = xoroshiro128plus(2026);
    rng.jump();
    let sum = 0;
    for (let k = 0; k < 12; k++) sum += (rng.next() >>> 0) / 2 ** 32;
    expect(first.entries[0]?.decisionVector?.[0]).toBe(0.3 + 0.02 * (sum - 6));
  });

  it('without noise, every dynamic returns exactly its planted value', () => {
    const generated = generateSyntheticTrajectories(planted);
    const { expected } = generated.groundTruth;
    expect(expected).toMatchObject({
      continuity: 0.99,
      plasticity: 0.2,
      hysteresis: 0.08,
      memoryAccumulation: 2,
      experienceDivergence: 0.15,
    });
    const measured = measure(generated);
    expect(measured.continuity).toBeCloseTo(expected.continuity, 12);
    expect(measured.drift).toBeCloseTo(expected.drift, 12);
    expect(measured.driftPerEvent).toBeCloseTo(expected.driftPerEvent, 12);
    expect(measured.plasticity).toBeCloseTo(expected.plasticity, 12);
    expect(measured.stability).toBeCloseTo(expected.stability, 12);
    expect(measured.recovery).toBeCloseTo(expected.recovery!, 12);
    expect(measured.hysteresis).toBeCloseTo(expected.hysteresis, 12);
    expect(measured.memoryAccumulation).toBeCloseTo(expected.memoryAccumulation, 12);
    expect(measured.divergence.value).toBeCloseTo(expected.experienceDivergence, 12);
  });

  it('recovers a planted recovery fraction exactly when there is no drift, and tracks drift when there is', () => {
    const still = generateSyntheticTrajectories({ ...planted, driftRate: 0 });
    expect(still.groundTruth.expected.recovery).toBe(0.75);
    expect(measure(still).recovery).toBeCloseTo(0.75, 12);
    // with drift d = 0.01 per checkpoint: 1 - |2d + 0.3 * 0.25| / |d + 0.3| = 1 - 0.095 / 0.31
    expect(generateSyntheticTrajectories(planted).groundTruth.expected.recovery).toBeCloseTo(
      1 - 0.095 / 0.31,
      12,
    );
  });

  it('with noise, recovers every planted value within tolerance over 200 replicates', () => {
    const noise = 0.004;
    const generated = generateSyntheticTrajectories({ ...planted, noise, replicates: 200 });
    const { expected } = generated.groundTruth;
    expect(generated.groundTruth.clampedObservations).toBe(0);
    const measured = measure(generated);
    // Effects are >= 10 noise SDs except the drift step (0.01 vs a difference SD of 0.0057), whose
    // folding bias is below 0.0002; 0.002 covers it and the sampling error with a wide margin.
    expect(Math.abs(measured.continuity - expected.continuity)).toBeLessThan(0.002);
    expect(Math.abs(measured.drift - expected.drift)).toBeLessThan(0.002);
    expect(Math.abs(measured.plasticity - expected.plasticity)).toBeLessThan(0.002);
    expect(Math.abs(measured.recovery - expected.recovery!)).toBeLessThan(0.003);
    expect(Math.abs(measured.hysteresis - expected.hysteresis)).toBeLessThan(0.002);
    expect(Math.abs(measured.memoryAccumulation - expected.memoryAccumulation)).toBeLessThan(0.002);
    // The sample variance is unbiased for stability^2 (trend variance + noise^2).
    expect(Math.abs(measured.stabilityVariance / expected.stability ** 2 - 1)).toBeLessThan(0.05);
    // Divergence: D(A, A2) sits at the noise floor s * sqrt(2/pi) (s = sqrt(2) * noise) while
    // D(A, B) is ~|effect|, so the corrected difference is effect - floor, not effect.
    const s = Math.SQRT2 * noise;
    const floor = s * Math.sqrt(2 / Math.PI);
    expect(Math.abs(measured.divergence.meanSameHistoryDistance! - floor)).toBeLessThan(0.0005);
    expect(
      Math.abs(
        measured.divergence.value! - (foldedNormalMean(expected.experienceDivergence, s) - floor),
      ),
    ).toBeLessThan(0.001);
    expect(measured.divergence.includedPairs).toBe(200);
  });

  it('recovers the noise SD as stability when nothing drifts', () => {
    const generated = generateSyntheticTrajectories({
      ...planted,
      driftRate: 0,
      noise: 0.03,
      lastCheckpoint: 40,
      replicates: 50,
    });
    expect(generated.groundTruth.expected.stability).toBeCloseTo(0.03, 12);
    const measured = measure(generated);
    expect(Math.abs(measured.stabilityVariance / 0.03 ** 2 - 1)).toBeLessThan(0.05);
    // With 40 neutral checkpoints the SD's own small-sample bias (c4 = 0.994) is negligible.
    expect(Math.abs(measured.stability / 0.03 - 1)).toBeLessThan(0.03);
  });

  it('counts observations clamped into [0, 1]', () => {
    const near = generateSyntheticTrajectories({
      ...planted,
      baseline: 0.02,
      driftRate: 0,
      interventionEffect: 0,
      historyEffect: 0,
      pathDependence: 0,
      fault: { at: 2, size: 0, recoveryFraction: 0 },
      noise: 0.05,
    });
    expect(near.groundTruth.clampedObservations).toBeGreaterThan(0);
    for (const entry of near.entries)
      for (const x of entry.decisionVector!) expect(x! >= 0 && x! <= 1).toBe(true);
  });

  it('refuses planted values that leave the decision scale, and malformed parameters', () => {
    expect(() => generateSyntheticTrajectories({ ...planted, baseline: 0.9 })).toThrow(
      /^baseline: the latent decision coordinate 0 of role intervention is 1\.\d+ at checkpoint 2, outside \[0, 1\]/,
    );
    expect(() => generateSyntheticTrajectories({ ...planted, interventionAt: 5 })).toThrow(
      /^interventionAt:/,
    );
    expect(() => generateSyntheticTrajectories({ ...planted, seed: -1 })).toThrow(
      InvalidArgumentError,
    );
    expect(() => generateSyntheticTrajectories({ ...planted, noise: -0.1 })).toThrow(/^noise:/);
    expect(() =>
      generateSyntheticTrajectories({
        ...planted,
        fault: { at: 6, size: 0.1, recoveryFraction: 1 },
      }),
    ).toThrow(/^fault\.at:/);
    expect(() => generateSyntheticTrajectories({ ...planted, baseline: [] })).toThrow(/^baseline:/);
  });
});
