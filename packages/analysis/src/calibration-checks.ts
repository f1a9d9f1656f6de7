import { hash } from 'node:crypto';
import { AXIS_IDS } from '@chi/scoring';
import { estimateCalibrationAxes } from '@chi/scoring/internal';
import type { AxisId, AxisProfile, HumanCalibration } from '@chi/spec';
import type { CalibrationParticipant, ChiComparison } from '@chi/spec/internal';
import { quantileOfSorted } from '@chi/stats/internal';
import type { z } from 'zod';
import type {
  ChiSummarySchema,
  HeldOutSchema,
  ImitationRowSchema,
  ReliabilityRowSchema,
  SensitivityRowSchema,
  SubgroupRowSchema,
} from './profiles-data';
import { chiOf, hOf } from './similarity-of';

type HeldOut = z.infer<typeof HeldOutSchema>;
type ReliabilityRow = z.infer<typeof ReliabilityRowSchema>;
type SubgroupRow = z.infer<typeof SubgroupRowSchema>;
type SensitivityRow = z.infer<typeof SensitivityRowSchema>;
type ImitationRow = z.infer<typeof ImitationRowSchema>;

/** What {@link calibrationChecks} needs. */
export interface CalibrationChecksInput {
  readonly calibration: HumanCalibration;
  readonly comparison: ChiComparison;
  readonly analysisSeed: number;
  readonly systems: readonly string[];
  /** Each system's mean feature profile. */
  readonly profiles: ReadonlyMap<string, AxisProfile>;
  /** Accuracy of a content-blind answer per behavior axis. */
  readonly chanceAccuracy: Partial<Record<AxisId, number>>;
  /**
   * The scripted imitator systems that ran in this run (see {@link isImitatorSpec}), each with its
   * manifest description and its measured capacity p; their profiles are in `profiles`.
   */
  readonly imitators?: readonly {
    readonly systemId: string;
    readonly description: string;
    readonly capacity: ImitationRow['capacity'];
  }[];
}

/** The model ID of the scripted imitator system of `@chi/pilot` (`--systems imitator`). */
export const IMITATOR_MODEL_ID = 'scripted/imitator';

/** True for the manifest entry of a scripted imitator system. */
export function isImitatorSpec(system: { kind: string; model: string }): boolean {
  return system.kind === 'scripted' && system.model === IMITATOR_MODEL_ID;
}

/** A participant's features as a profile. */
export function participantProfile(participant: CalibrationParticipant): AxisProfile {
  return { axes: participant.features };
}

function summary(values: readonly number[]): z.infer<typeof ChiSummarySchema> {
  const sorted = [...values].sort((a, b) => a - b);
  const q = (p: number) => (sorted.length === 0 ? null : quantileOfSorted(sorted, p));
  return {
    participants: values.length,
    min: q(0),
    q25: q(0.25),
    median: q(0.5),
    q75: q(0.75),
    max: q(1),
  };
}

function fromSample(
  base: HumanCalibration,
  participants: readonly CalibrationParticipant[],
): { calibration: HumanCalibration | null; reason: string | null } {
  if (participants.length < 2)
    return {
      calibration: null,
      reason: `${participants.length} participant(s): at least 2 needed`,
    };
  const estimate = estimateCalibrationAxes(participants);
  if (estimate.zeroSpread.length > 0)
    return {
      calibration: null,
      reason: `zero spread in ${estimate.zeroSpread.map((f) => `${f.axis}.${f.feature}`).join(', ')}`,
    };
  return {
    calibration: {
      id: base.id,
      description: base.description,
      synthetic: base.synthetic,
      axes: estimate.axes,
    },
    reason: null,
  };
}

/**
 * The held-out split: participants ordered by SHA-256 of `<analysis seed>/<participant id>`; the
 * first ceil(n / 2) are the calibration half, the rest are held out.
 */
export function heldOutSplit(
  participants: readonly CalibrationParticipant[],
  analysisSeed: number,
): { calibrationHalf: CalibrationParticipant[]; heldOut: CalibrationParticipant[] } {
  const keyed = participants.map((p) => ({
    p,
    key: hash('sha256', `${analysisSeed}/${p.id}`, 'hex'),
  }));
  keyed.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const half = Math.ceil(keyed.length / 2);
  return {
    calibrationHalf: keyed.slice(0, half).map((k) => k.p),
    heldOut: keyed.slice(half).map((k) => k.p),
  };
}

function heldOutCheck(input: CalibrationChecksInput): HeldOut {
  const { calibration, comparison } = input;
  const participants = calibration.sample?.participants ?? [];
  const split = heldOutSplit(participants, input.analysisSeed);
  const half = fromSample(calibration, split.calibrationHalf);
  const empty = summary([]);
  if (half.calibration === null)
    return {
      calibrationHalf: split.calibrationHalf.length,
      heldOut: split.heldOut.length,
      reason: `the calibration half cannot be calibrated: ${half.reason}`,
      heldOutChi: empty,
      inSampleChi: empty,
      systemsChi: input.systems.map((systemId) => ({ systemId, chi: null })),
    };
  const chiOfAll = (group: readonly CalibrationParticipant[]) =>
    group
      .map(
        (p) =>
          chiOf(
            participantProfile(p),
            half.calibration as HumanCalibration,
            comparison.weights.weights,
            comparison.transform,
          ).value,
      )
      .filter((v): v is number => v !== null);
  return {
    calibrationHalf: split.calibrationHalf.length,
    heldOut: split.heldOut.length,
    reason: null,
    heldOutChi: summary(chiOfAll(split.heldOut)),
    inSampleChi: summary(chiOfAll(split.calibrationHalf)),
    // like with like: the systems against the same half the held-out humans are scored against
    systemsChi: input.systems.map((systemId) => {
      const profile = input.profiles.get(systemId);
      return {
        systemId,
        chi:
          profile === undefined
            ? null
            : chiOf(
                profile,
                half.calibration as HumanCalibration,
                comparison.weights.weights,
                comparison.transform,
              ).value,
      };
    }),
  };
}

/** Pearson correlation, or null when either side has no spread or fewer than 3 pairs. */
export function pearson(pairs: readonly (readonly [number, number])[]): number | null {
  const n = pairs.length;
  if (n < 3) return null;
  const mx = pairs.reduce((s, p) => s + p[0], 0) / n;
  const my = pairs.reduce((s, p) => s + p[1], 0) / n;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (const [x, y] of pairs) {
    sxy += (x - mx) * (y - my);
    sxx += (x - mx) ** 2;
    syy += (y - my) ** 2;
  }
  if (sxx === 0 || syy === 0) return null;
  return sxy / Math.sqrt(sxx * syy);
}

function reliabilityCheck(calibration: HumanCalibration): ReliabilityRow[] {
  const participants = calibration.sample?.participants ?? [];
  const rows: ReliabilityRow[] = [];
  for (const axis of AXIS_IDS) {
    for (const feature of Object.keys(calibration.axes[axis] ?? {}).sort()) {
      const pairs = participants.flatMap((p) => {
        const halves = p.halves[axis]?.[feature];
        return halves === undefined ? [] : [halves];
      });
      const r = pearson(pairs);
      rows.push({
        axis,
        feature,
        participants: pairs.length,
        halfCorrelation: r,
        spearmanBrown: r === null ? null : (2 * r) / (1 + r),
        reason:
          pairs.length === 0
            ? 'the human data has no odd/even halves for this feature'
            : r === null
              ? 'fewer than 3 participants with halves, or a half without spread'
              : null,
      });
    }
  }
  return rows;
}

function subgroupCheck(input: CalibrationChecksInput): SubgroupRow[] {
  const { calibration, comparison } = input;
  const participants = calibration.sample?.participants ?? [];
  const groups = [...new Set(participants.flatMap((p) => Object.keys(p.groups)))].sort();
  const rows: SubgroupRow[] = [];
  for (const group of groups) {
    const levels = [
      ...new Set(
        participants.flatMap((p) =>
          p.groups[group] === undefined ? [] : [p.groups[group] as string],
        ),
      ),
    ].sort();
    for (const level of levels) {
      const members = participants.filter((p) => p.groups[group] === level);
      const sub = fromSample(calibration, members);
      for (const systemId of input.systems) {
        const profile = input.profiles.get(systemId) as AxisProfile;
        if (sub.calibration === null) {
          rows.push({
            systemId,
            group,
            level,
            participants: members.length,
            h: {},
            chi: null,
            reason: sub.reason,
          });
          continue;
        }
        const h: Partial<Record<AxisId, number | null>> = {};
        for (const axis of AXIS_IDS)
          h[axis] = hOf(profile, sub.calibration, axis, comparison.transform).value;
        const result = chiOf(
          profile,
          sub.calibration,
          comparison.weights.weights,
          comparison.transform,
        );
        rows.push({
          systemId,
          group,
          level,
          participants: members.length,
          h,
          chi: result.value,
          reason: result.reason,
        });
      }
    }
  }
  return rows;
}

function sensitivityCheck(input: CalibrationChecksInput): SensitivityRow[] {
  const { calibration, comparison } = input;
  const variants = [
    { variant: 'primary', weights: comparison.weights, transform: comparison.transform },
    ...comparison.alternativeWeights.map((weights) => ({
      variant: `weights ${weights.id}`,
      weights,
      transform: comparison.transform,
    })),
    ...comparison.alternativeTransforms.map((transform) => ({
      variant: `transform ${transform}`,
      weights: comparison.weights,
      transform,
    })),
  ];
  const rows: SensitivityRow[] = [];
  for (const systemId of input.systems) {
    const profile = input.profiles.get(systemId) as AxisProfile;
    const primary = chiOf(
      profile,
      calibration,
      comparison.weights.weights,
      comparison.transform,
    ).value;
    for (const v of variants) {
      const result = chiOf(profile, calibration, v.weights.weights, v.transform);
      rows.push({
        systemId,
        variant: v.variant,
        weightsId: v.weights.id,
        transform: v.transform,
        chi: result.value,
        difference: result.value === null || primary === null ? null : result.value - primary,
        reason: result.reason,
      });
    }
  }
  return rows;
}

function imitationCheck(input: CalibrationChecksInput): ImitationRow[] {
  const { calibration, comparison } = input;
  const centroid: AxisProfile = { axes: {} };
  const blind: AxisProfile = { axes: {} };
  const centroidCapacity: ImitationRow['capacity'] = [];
  const blindCapacity: ImitationRow['capacity'] = [];
  for (const axis of AXIS_IDS) {
    const features = calibration.axes[axis];
    if (features === undefined) continue;
    const centroidAxis: Record<string, number> = {};
    const blindAxis: Record<string, number> = {};
    const abstain = features.abstain_rate?.mu ?? 0;
    for (const [feature, { mu }] of Object.entries(features)) {
      centroidAxis[feature] = mu;
      if (feature === 'accuracy') {
        const chance = input.chanceAccuracy[axis] ?? 0;
        blindAxis[feature] = (1 - abstain) * chance;
      } else if (feature === 'retrieval') blindAxis[feature] = 0;
      else blindAxis[feature] = mu;
    }
    centroid.axes[axis] = centroidAxis;
    blind.axes[axis] = blindAxis;
    if (axis !== 'M' && features.accuracy !== undefined) {
      centroidCapacity.push({
        test: `behavior.${axis}`,
        measure: 'accuracy',
        estimate: features.accuracy.mu,
      });
      blindCapacity.push({
        test: `behavior.${axis}`,
        measure: 'accuracy',
        estimate: blindAxis.accuracy ?? null,
      });
    }
  }
  if (calibration.axes.M !== undefined) {
    centroidCapacity.push({ test: 'memory.notebook.min-load', measure: 'Q_M', estimate: null });
    blindCapacity.push({ test: 'memory.notebook.min-load', measure: 'Q_M', estimate: 0 });
  }
  const row = (
    systemId: string,
    basis: ImitationRow['basis'],
    description: string,
    profile: AxisProfile,
    capacity: ImitationRow['capacity'],
  ): ImitationRow => {
    const h: Partial<Record<AxisId, number | null>> = {};
    for (const axis of AXIS_IDS)
      h[axis] = hOf(profile, calibration, axis, comparison.transform).value;
    const result = chiOf(profile, calibration, comparison.weights.weights, comparison.transform);
    return { systemId, basis, description, h, chi: result.value, capacity, reason: result.reason };
  };
  const measured = (input.imitators ?? []).map((imitator) =>
    row(
      imitator.systemId,
      'measured',
      imitator.description,
      input.profiles.get(imitator.systemId) ?? { axes: {} },
      imitator.capacity,
    ),
  );
  return [
    ...measured,
    row(
      'imitator:centroid',
      'analytic-bound',
      'ANALYTIC BOUND, no system answered: the profile that sits on the calibration centroid mu on every feature (CHI = 100). Reaching it needs human-level accuracy, i.e. doing the tasks (or reading the answer key); its task scores are the human means',
      centroid,
      centroidCapacity,
    ),
    row(
      'imitator:content-blind',
      'analytic-bound',
      'ANALYTIC BOUND, no system answered: the expected profile of a content-blind imitator that abstains at the human mean rate, changes its choice across frames at the human mean rate, reports false memories at the human mean rate, and otherwise picks an option uniformly (accuracy = (1 - abstain) / options; retrieval 0, so Q_M = 0); the measured imitator system is its sampled counterpart',
      blind,
      blindCapacity,
    ),
  ];
}

/**
 * The calibration's validity checks ("held-out human comparisons, reliability checks and subgroup
 * analysis"; "different weights or transforms need ... sensitivity analysis"; "can a scripted
 * agent imitate the similarity score?").
 */
export function calibrationChecks(input: CalibrationChecksInput): {
  heldOut: HeldOut;
  reliability: ReliabilityRow[];
  subgroups: SubgroupRow[];
  sensitivity: SensitivityRow[];
  imitation: ImitationRow[];
} {
  return {
    heldOut: heldOutCheck(input),
    reliability: reliabilityCheck(input.calibration),
    subgroups: subgroupCheck(input),
    sensitivity: sensitivityCheck(input),
    imitation: imitationCheck(input),
  };
}
