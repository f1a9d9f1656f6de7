import { buildCalibration, EQUAL_ALPHAS } from '@chi/scoring';
import type { BehaviorScore, HumanDataRow, RunManifest } from '@chi/spec';
import type { AxisTaskScore } from '@chi/spec/internal';
import { drawResampleIndices } from '@chi/stats/internal';
import { describe, expect, it } from 'vitest';
import { analyzeProfiles, NO_RUN_CALIBRATION_REASON, participantSeed } from './profiles';
import type { BehaviorObservation, MemoryObservation, RunScores } from './run-scores';
import { runScoresOf } from './test/run-scores-of';

// Hand-made scores: one system, three worlds with R accuracy 2/4, 3/4, 4/4 (mean 0.75).
const task = (correct: number): AxisTaskScore => ({
  axis: 'R',
  accuracy: { numerator: correct, denominator: 4, rate: correct / 4 },
  answered: 4,
  abstained: 0,
  invalid: 0,
  missing: 0,
  duplicate: 0,
  notAnOption: 0,
});
const behavior = (seed: number, correct: number): BehaviorObservation => ({
  kind: 'behavior-observation',
  systemId: 'sys',
  blockId: `behavior.w${seed}`,
  worldSeed: seed,
  blockComplete: true,
  unusableRequests: [],
  score: {
    axes: {
      R: task(correct),
      C: { ...task(correct), axis: 'C' },
      A: { ...task(correct), axis: 'A' },
      I: { ...task(correct), axis: 'I' },
    },
    frameInducedChange: {
      rate: { numerator: 0, denominator: 0, rate: null },
      pairs: [],
      interpretation: 'rate of frame-induced choice changes; neither higher nor lower is better',
    },
  } satisfies BehaviorScore,
});
const behaviorObservations = [behavior(1, 2), behavior(2, 3), behavior(3, 4)];
const scores: RunScores = runScoresOf({ behavior: { observations: behaviorObservations } });
// SYNTHETIC calibration of R.accuracy only: participants 0.6, 0.8, 1.0 -> mu 0.8, s 0.2.
const rows: HumanDataRow[] = [0.6, 0.8, 1].map((value, i) => ({
  participant: `p${i}`,
  axis: 'R',
  test: 'behavior.R',
  feature: 'accuracy',
  value,
}));
const calibration = buildCalibration(rows, { synthetic: true, description: 'SYNTHETIC: test' });
const analysis = { seed: 7, resamples: 300, level: 0.95, taus: [0.8] };
const manifest = (withCalibration: boolean) =>
  ({
    systems: [{ id: 'sys' }],
    analysis,
    ...(withCalibration
      ? {
          chiComparison: {
            calibrationId: calibration.id,
            calibrationSha256: calibration.build?.contentSha256,
            calibrationSynthetic: true,
            calibrationParticipants: 3,
            featureSchema: 'pilot-features-v1',
            weights: { id: 'only-R', weights: { R: 1, M: 0, C: 0, A: 0, I: 0 } },
            transform: 'gaussian',
            alternativeWeights: [],
            alternativeTransforms: [],
            heldOutSplit:
              'half: participants ordered by SHA-256 of "<analysis seed>/<id>", first ceil(n/2) calibrate',
          },
        }
      : {}),
  }) as unknown as RunManifest;

describe('analyzeProfiles (hand-made scores, SYNTHETIC calibration)', () => {
  const data = analyzeProfiles(manifest(true), calibration, scores, { alphas: EQUAL_ALPHAS });

  it('keeps p (task accuracy) and z (features) apart, each with a world interval', () => {
    const p = data.capacity.find((r) => r.test === 'behavior.R');
    expect(p).toMatchObject({ axis: 'R', measure: 'accuracy', estimate: 0.75, worlds: 3 });
    expect(p?.interval?.lower).toBeGreaterThanOrEqual(0.5);
    expect(p?.interval?.upper).toBeLessThanOrEqual(1);
    const z = data.features.find((r) => r.axis === 'R' && r.feature === 'accuracy');
    expect(z?.z).toBe(0.75);
    expect(data.features.find((r) => r.feature === 'frame_change_rate')?.z).toBeNull();
  });

  it('computes h and CHI by hand: d = (0.75 - 0.8) / 0.2 = -0.25, h = e^(-0.03125)', () => {
    const h = data.similarity.find((r) => r.axis === 'R')?.h;
    expect(h?.estimate).toBeCloseTo(Math.exp(-0.5 * 0.25 ** 2), 12);
    expect(data.chi[0]?.chi.estimate).toBeCloseTo(100 * Math.exp(-0.5 * 0.25 ** 2), 10);
    expect(data.chi[0]?.capacity.map((c) => c.test)).toEqual([
      'behavior.R',
      'behavior.C',
      'behavior.A',
      'behavior.I',
    ]);
    // Axis C is not calibrated: h null with the reason, never a number.
    expect(data.similarity.find((r) => r.axis === 'C')?.h).toMatchObject({
      estimate: null,
      reason: 'the calibration does not calibrate axis C',
    });
  });

  it('resamples participants apart from worlds and counts the undefined replicates', () => {
    // A participant resample of 3 draws with all three the same participant has zero spread: s
    // would be 0, so that replicate is undefined in the calibration and combined layers.
    const draws = drawResampleIndices({
      clusterCount: 3,
      resamples: analysis.resamples,
      seed: participantSeed(analysis.seed),
    });
    let degenerate = 0;
    for (let r = 0; r < analysis.resamples; r++)
      if (draws[3 * r] === draws[3 * r + 1] && draws[3 * r] === draws[3 * r + 2]) degenerate++;
    expect(degenerate).toBeGreaterThan(0);
    const chi = data.chi[0]?.chi;
    expect(chi?.undefinedReplicates).toEqual([0, degenerate, degenerate]);
    for (const layer of [chi?.world, chi?.calibration, chi?.combined]) {
      expect(layer?.lower).toBeLessThanOrEqual(chi?.estimate as number);
      expect(layer?.upper).toBeGreaterThanOrEqual(chi?.estimate as number);
    }
    expect(data.uncertainty.participantSeed).toBe(8);
  });

  it('without a calibration: h and CHI null with the reason, p still there', () => {
    const none = analyzeProfiles(manifest(false), null, scores, { alphas: EQUAL_ALPHAS });
    expect(none.comparison).toBeNull();
    expect(none.chi[0]?.chi).toMatchObject({ estimate: null, reason: NO_RUN_CALIBRATION_REASON });
    expect(none.similarity.every((r) => r.h.estimate === null)).toBe(true);
    expect(none.capacity).toEqual(data.capacity);
    expect([none.heldOut, none.sensitivity, none.imitation]).toEqual([null, [], []]);
  });

  it('uses the worlds complete in every cell CHI combines (behavior and memory), and says which', () => {
    // Memory (smallest load) only in worlds 1 and 2: the profile, h and CHI use worlds 1 and 2,
    // so z(R.accuracy) = (0.5 + 0.75) / 2 = 0.625, while p keeps each test's own worlds.
    const memory = [1, 2].map(
      (seed) =>
        ({
          kind: 'memory-observation',
          systemId: 'sys',
          blockId: `memory.w${seed}.n32`,
          worldSeed: seed,
          blockComplete: true,
          unusableRequests: [],
          condition: 'notebook',
          load: 32,
          score: { factors: { r: 1, t: 1, s: 1, u: 1, i: 1, oneMinusF: 1 }, qualityScore: 1 },
        }) as unknown as MemoryObservation,
    );
    const holes = analyzeProfiles(
      manifest(true),
      calibration,
      runScoresOf({
        memory: { observations: memory },
        behavior: { observations: behaviorObservations },
      }),
      {
        alphas: EQUAL_ALPHAS,
      },
    );
    expect(holes.chi[0]?.worldSeeds).toEqual([1, 2]);
    expect(holes.similarity.every((r) => r.worldSeeds.join() === '1,2')).toBe(true);
    expect(holes.features.find((r) => r.axis === 'R' && r.feature === 'accuracy')?.z).toBe(0.625);
    expect(holes.capacity.find((r) => r.test === 'behavior.R')?.estimate).toBe(0.75);
    expect(data.chi[0]?.worldSeeds).toEqual([1, 2, 3]);
  });

  it('is deterministic', () => {
    expect(analyzeProfiles(manifest(true), calibration, scores, { alphas: EQUAL_ALPHAS })).toEqual(
      data,
    );
  });
});
