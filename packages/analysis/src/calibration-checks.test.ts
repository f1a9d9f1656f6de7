import { buildCalibration } from '@chi/scoring';
import type { HumanDataRow } from '@chi/spec';
import type { ChiComparison } from '@chi/spec/internal';
import { describe, expect, it } from 'vitest';
import { calibrationChecks, heldOutSplit, pearson } from './calibration-checks';

// SYNTHETIC: four made-up participants on one R feature with halves, two cohorts.
const row = (participant: string, value: number, halves: [number, number], cohort: string) =>
  ({
    participant,
    axis: 'R',
    test: 'behavior.R',
    feature: 'accuracy',
    value,
    halves,
    groups: { cohort },
  }) satisfies HumanDataRow;
const calibration = buildCalibration(
  [
    row('p1', 0.4, [0.3, 0.5], 'a'),
    row('p2', 0.6, [0.6, 0.6], 'a'),
    row('p3', 0.8, [0.7, 0.9], 'b'),
    row('p4', 1.0, [1.0, 1.0], 'b'),
  ],
  { synthetic: true, description: 'SYNTHETIC: unit test' },
);
const comparison: ChiComparison = {
  calibrationId: calibration.id,
  calibrationSha256: calibration.build?.contentSha256 as string,
  calibrationSynthetic: true,
  calibrationParticipants: 4,
  featureSchema: 'pilot-features-v1',
  weights: { id: 'only-R', weights: { R: 1, M: 0, C: 0, A: 0, I: 0 } },
  transform: 'gaussian',
  alternativeWeights: [],
  alternativeTransforms: ['cauchy'],
  heldOutSplit:
    'half: participants ordered by SHA-256 of "<analysis seed>/<id>", first ceil(n/2) calibrate',
};
const checks = calibrationChecks({
  calibration,
  comparison,
  analysisSeed: 1,
  systems: ['sys'],
  // mu = 0.7, s = sqrt((0.09 + 0.01 + 0.01 + 0.09) / 3) = sqrt(0.2 / 3)
  profiles: new Map([['sys', { axes: { R: { accuracy: 0.7 } } }]]),
  chanceAccuracy: { R: 0.25 },
});

describe('calibration checks (hand-worked, SYNTHETIC data)', () => {
  it('pearson and Spearman-Brown', () => {
    // halves (0.3,0.5) (0.6,0.6) (0.7,0.9) (1,1): mean 0.65 and 0.75.
    // dx = -.35 -.05 .05 .35; dy = -.25 -.15 .15 .25; sxy = .0875+.0075+.0075+.0875 = .19
    // sxx = .1225*2 + .0025*2 = .25; syy = .0625*2 + .0225*2 = .17; r = .19 / sqrt(.0425)
    const r = 0.19 / Math.sqrt(0.25 * 0.17);
    expect(
      pearson([
        [0.3, 0.5],
        [0.6, 0.6],
        [0.7, 0.9],
        [1, 1],
      ]),
    ).toBeCloseTo(r, 12);
    expect(checks.reliability).toEqual([
      {
        axis: 'R',
        feature: 'accuracy',
        participants: 4,
        halfCorrelation: expect.closeTo(r, 12),
        spearmanBrown: expect.closeTo((2 * r) / (1 + r), 12),
        reason: null,
      },
    ]);
    expect(
      pearson([
        [1, 1],
        [1, 2],
        [1, 3],
      ]),
    ).toBeNull();
  });

  it('splits participants into disjoint halves by hash, the same for a seed', () => {
    const participants = calibration.sample?.participants ?? [];
    const split = heldOutSplit(participants, 1);
    expect(split.calibrationHalf).toHaveLength(2);
    expect(split.heldOut).toHaveLength(2);
    const ids = [...split.calibrationHalf, ...split.heldOut].map((p) => p.id).sort();
    expect(ids).toEqual(['p1', 'p2', 'p3', 'p4']);
    expect(heldOutSplit([...participants].reverse(), 1)).toEqual(split);
    expect(checks.heldOut.heldOutChi.participants).toBe(2);
    expect(checks.heldOut.inSampleChi.participants).toBe(2);
  });

  it('scores systems against the same calibration half as the held-out humans (like with like)', () => {
    const participants = calibration.sample?.participants ?? [];
    const half = heldOutSplit(participants, 1).calibrationHalf;
    const halfMu =
      half.reduce((sum, p) => sum + (p.features.R?.accuracy as number), 0) / half.length;
    // a system at the half's centroid: CHI 100 against the half, whatever the full sample says
    const atHalf = calibrationChecks({
      calibration,
      comparison,
      analysisSeed: 1,
      systems: ['sys', 'half-centroid'],
      profiles: new Map([
        ['sys', { axes: { R: { accuracy: 0.7 } } }],
        ['half-centroid', { axes: { R: { accuracy: halfMu } } }],
      ]),
      chanceAccuracy: { R: 0.25 },
    });
    expect(halfMu).not.toBeCloseTo(0.7, 6);
    expect(atHalf.heldOut.systemsChi.find((r) => r.systemId === 'half-centroid')?.chi).toBe(100);
    // 'sys' sits at the full sample's centroid (CHI 100 there) but off the half's
    expect(atHalf.heldOut.systemsChi.find((r) => r.systemId === 'sys')?.chi).toBeLessThan(100);
    expect(checks.heldOut.systemsChi.map((r) => r.systemId)).toEqual(['sys']);
  });

  it('a system at the centroid has CHI 100 under every transform; subgroups recalibrate', () => {
    expect(checks.sensitivity.map((r) => [r.variant, r.chi, r.difference])).toEqual([
      ['primary', 100, 0],
      ['transform cauchy', 100, 0],
    ]);
    // cohort a: mu 0.5, s = sqrt(0.02) -> d = 0.2 / sqrt(0.02) = sqrt(2), h = e^-1.
    const a = checks.subgroups.find((r) => r.level === 'a');
    expect(a?.h.R).toBeCloseTo(Math.exp(-1), 12);
    expect(a?.chi).toBeCloseTo(100 * Math.exp(-1), 10);
  });

  it('imitators: the centroid copy scores 100 with human-mean p; the content-blind one gets chance p', () => {
    const [centroid, blind] = checks.imitation;
    expect(centroid?.chi).toBe(100);
    expect(centroid?.capacity).toEqual([
      { test: 'behavior.R', measure: 'accuracy', estimate: expect.closeTo(0.7, 12) },
    ]);
    // accuracy 0.25 (no abstain feature): d = (0.25 - 0.7) / s
    const s = Math.sqrt(0.2 / 3);
    expect(blind?.capacity[0]?.estimate).toBe(0.25);
    expect(blind?.chi).toBeCloseTo(100 * Math.exp(-0.5 * (0.45 / s) ** 2), 10);
  });

  it('the imitation table puts a measured imitator system first, then the analytic bounds, each labelled', () => {
    const measured = calibrationChecks({
      calibration,
      comparison,
      analysisSeed: 1,
      systems: ['sys', 'imitator'],
      // The imitator's measured R accuracy 0.1: d = (0.1 - 0.7) / s, h_R = exp(-d^2 / 2).
      profiles: new Map([
        ['sys', { axes: { R: { accuracy: 0.7 } } }],
        ['imitator', { axes: { R: { accuracy: 0.1 } } }],
      ]),
      chanceAccuracy: { R: 0.25 },
      imitators: [
        {
          systemId: 'imitator',
          description: 'SCRIPTED BASELINE imitator',
          capacity: [{ test: 'behavior.R', measure: 'accuracy', estimate: 0.1 }],
        },
      ],
    }).imitation;
    expect(measured.map((r) => [r.systemId, r.basis])).toEqual([
      ['imitator', 'measured'],
      ['imitator:centroid', 'analytic-bound'],
      ['imitator:content-blind', 'analytic-bound'],
    ]);
    const s = Math.sqrt(0.2 / 3);
    expect(measured[0]?.h.R).toBeCloseTo(Math.exp(-0.5 * (0.6 / s) ** 2), 12);
    expect(measured[0]?.chi).toBeCloseTo(100 * Math.exp(-0.5 * (0.6 / s) ** 2), 10);
    expect(measured[0]?.capacity).toEqual([
      { test: 'behavior.R', measure: 'accuracy', estimate: 0.1 },
    ]);
    expect(measured[1]?.description).toMatch(/^ANALYTIC BOUND/);
    expect(checks.imitation.every((r) => r.basis === 'analytic-bound')).toBe(true);
  });
});
