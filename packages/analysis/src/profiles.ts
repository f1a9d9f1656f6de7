import { AXIS_IDS } from '@chi/scoring';
import { estimateCalibrationAxes } from '@chi/scoring/internal';
import type { AxisId, AxisProfile, HumanCalibration, QualityAlphas, RunManifest } from '@chi/spec';
import { PILOT_FEATURES } from '@chi/spec/internal';
import { percentileInterval } from '@chi/stats';
import { drawResampleIndices } from '@chi/stats/internal';
import { calibrationChecks, isImitatorSpec } from './calibration-checks';
import {
  featureKey,
  meanCapacity,
  meanProfile,
  type ProfileCluster,
  profileClusters,
  profileWorldSet,
} from './profile-features';
import type {
  CapacityRow,
  ChiRow,
  FeatureRow,
  LayeredEstimate,
  ProfilesData,
  SimilarityRow,
} from './profiles-data';
import type { RunScores } from './run-scores';
import { chiOf, hOf } from './similarity-of';

/** Why h and CHI are null in a run without a calibration. */
export const NO_RUN_CALIBRATION_REASON =
  'no human calibration was frozen in the manifest (run with --calibration FILE): h and CHI are undefined, and nothing is derived from task accuracy';

/** How the two uncertainty layers combine (also written into the release). */
export const COMBINATION_RULE =
  'independent resampling: replicate r draws one multiset of worlds (the release analysis seed, the same draws as every other interval) and, independently, one multiset of participants (seed + 1 mod 2^32) from which mu and s are re-estimated; the world layer holds the calibration at its participants, the calibration layer holds the profile at its worlds, the combined interval is the percentile interval of the joint replicates. Replicates where a number is undefined (a feature with zero spread in a participant resample, an unmeasured feature) are left out and counted.';

/** The seed of the participant resamples for an analysis seed. */
export function participantSeed(analysisSeed: number): number {
  return (analysisSeed + 1) % 2 ** 32;
}

/** A calibration re-estimated from a multiset of participants, or null when degenerate. */
export type CalibrationAxesLike = HumanCalibration['axes'];

function calibrationWith(base: HumanCalibration, axes: CalibrationAxesLike): HumanCalibration {
  return { id: base.id, description: base.description, synthetic: base.synthetic, axes };
}

function interval(values: readonly number[], level: number) {
  if (values.length < 2) return null;
  return percentileInterval(values, { level });
}

function layered(
  point: { value: number | null; reason: string | null },
  layers: readonly (readonly (number | null)[])[],
  level: number,
): LayeredEstimate {
  const defined = layers.map((values) => values.filter((v): v is number => v !== null));
  const omitted = layers.map((values, i) => values.length - (defined[i]?.length ?? 0));
  const ok = point.value !== null;
  return {
    estimate: point.value,
    reason: point.reason,
    world: ok ? interval(defined[0] ?? [], level) : null,
    calibration: ok ? interval(defined[1] ?? [], level) : null,
    combined: ok ? interval(defined[2] ?? [], level) : null,
    undefinedReplicates: [omitted[0] ?? 0, omitted[1] ?? 0, omitted[2] ?? 0],
  };
}

/** Options of {@link analyzeProfiles}. */
export interface AnalyzeProfilesOptions {
  readonly alphas: QualityAlphas;
  /** Accuracy of a content-blind answer per behavior axis (the imitation check); none if absent. */
  readonly chanceAccuracy?: Partial<Record<AxisId, number>>;
}

/**
 * The two profiles of a run, computed apart and never merged: the capacity profile p (task scores
 * per axis and test, world-bootstrap intervals) and the similarity profile h (per axis, against the
 * frozen calibration, with world, calibration and combined intervals); CHI from h only, each CHI
 * row carrying p; then the calibration's checks (held-out humans, split-half reliability,
 * subgroups, sensitivity to declared weights and transforms, and the imitation check). Without a
 * calibration every h and CHI is null with the reason. Pure and deterministic.
 */
export function analyzeProfiles(
  manifest: RunManifest,
  calibration: HumanCalibration | null,
  scores: RunScores,
  options: AnalyzeProfilesOptions,
): ProfilesData {
  const { analysis } = manifest;
  const comparison = manifest.chiComparison ?? null;
  const systems = manifest.systems.map((s) => s.id);
  const clusters = profileClusters(scores);
  const worldDraws =
    clusters.length === 0
      ? new Uint32Array(0)
      : drawResampleIndices({
          clusterCount: clusters.length,
          resamples: analysis.resamples,
          seed: analysis.seed,
        });
  const worldSample = (r: number): ProfileCluster[] =>
    Array.from(
      worldDraws.subarray(r * clusters.length, (r + 1) * clusters.length),
      (i) => clusters[i] as ProfileCluster,
    );
  const enoughWorlds = clusters.length >= 2;

  const capacity: CapacityRow[] = [];
  const features: FeatureRow[] = [];
  const profiles = new Map<string, AxisProfile>();
  const worldSets = new Map<string, number[]>();
  const capacityOf = new Map<string, ChiRow['capacity']>();
  for (const systemId of systems) {
    const point = meanCapacity(clusters, systemId, options.alphas);
    const replicates = new Map<string, number[]>();
    for (let r = 0; enoughWorlds && r < analysis.resamples; r++) {
      for (const [test, value] of meanCapacity(worldSample(r), systemId, options.alphas)) {
        if (value.value === null) continue;
        const list = replicates.get(test) ?? [];
        list.push(value.value);
        replicates.set(test, list);
      }
    }
    for (const [test, value] of point) {
      capacity.push({
        systemId,
        axis: value.axis,
        test,
        measure: value.measure,
        estimate: value.value,
        interval:
          value.value === null ? null : interval(replicates.get(test) ?? [], analysis.level),
        worlds: value.worlds,
      });
    }
    capacityOf.set(
      systemId,
      [...point].map(([test, value]) => ({ test, measure: value.measure, estimate: value.value })),
    );
    const worldSet = new Set(profileWorldSet(clusters, systemId));
    worldSets.set(systemId, [...worldSet]);
    const inSet = (sample: readonly ProfileCluster[]) => sample.filter((c) => worldSet.has(c.seed));
    const profile = meanProfile(inSet(clusters), systemId);
    profiles.set(systemId, profile);
    const featureReplicates = new Map<string, number[]>();
    for (let r = 0; worldSet.size >= 2 && r < analysis.resamples; r++) {
      const replicate = meanProfile(inSet(worldSample(r)), systemId);
      for (const { axis, feature } of PILOT_FEATURES) {
        const v = replicate.axes[axis]?.[feature];
        if (v === undefined) continue;
        const key = featureKey(axis, feature);
        const list = featureReplicates.get(key) ?? [];
        list.push(v);
        featureReplicates.set(key, list);
      }
    }
    for (const { axis, test, feature } of PILOT_FEATURES) {
      const z = profile.axes[axis]?.[feature] ?? null;
      features.push({
        systemId,
        axis,
        test,
        feature,
        z,
        interval:
          z === null
            ? null
            : interval(featureReplicates.get(featureKey(axis, feature)) ?? [], analysis.level),
        worlds: inSet(clusters).filter((c) =>
          c.features.get(systemId)?.has(featureKey(axis, feature)),
        ).length,
      });
    }
  }

  const uncertainty = {
    worldSeed: analysis.seed,
    participantSeed: participantSeed(analysis.seed),
    resamples: analysis.resamples,
    level: analysis.level,
    combination: COMBINATION_RULE,
  };
  const base = {
    kind: 'chi-profiles' as const,
    schemaVersion: 1 as const,
    featureSchema: 'pilot-features-v1' as const,
    uncertainty,
    capacity,
    features,
  };
  if (calibration === null || comparison === null) {
    return {
      ...base,
      comparison: null,
      calibrationLabel: null,
      reason: NO_RUN_CALIBRATION_REASON,
      similarity: systems.flatMap((systemId) =>
        AXIS_IDS.map((axis) => ({
          systemId,
          axis,
          worldSeeds: worldSets.get(systemId) ?? [],
          h: layered(
            { value: null, reason: NO_RUN_CALIBRATION_REASON },
            [[], [], []],
            analysis.level,
          ),
        })),
      ),
      chi: systems.map((systemId) => ({
        systemId,
        worldSeeds: worldSets.get(systemId) ?? [],
        chi: layered(
          { value: null, reason: NO_RUN_CALIBRATION_REASON },
          [[], [], []],
          analysis.level,
        ),
        capacity: capacityOf.get(systemId) ?? [],
      })),
      heldOut: null,
      reliability: [],
      subgroups: [],
      sensitivity: [],
      imitation: [],
    };
  }

  const participants = calibration.sample?.participants ?? [];
  const participantDraws = drawResampleIndices({
    clusterCount: Math.max(participants.length, 1),
    resamples: analysis.resamples,
    seed: participantSeed(analysis.seed),
  });
  const resampledCalibrations: (HumanCalibration | null)[] = [];
  for (let r = 0; r < analysis.resamples; r++) {
    const drawn = Array.from(
      participantDraws.subarray(r * participants.length, (r + 1) * participants.length),
      (i) => participants[i] as (typeof participants)[number],
    );
    const estimate = estimateCalibrationAxes(drawn);
    resampledCalibrations.push(
      estimate.zeroSpread.length > 0 || drawn.length < 2
        ? null
        : calibrationWith(calibration, estimate.axes),
    );
  }
  const weights = comparison.weights.weights;
  const transform = comparison.transform;
  const similarity: SimilarityRow[] = [];
  const chiRows: ChiRow[] = [];
  for (const systemId of systems) {
    const profile = profiles.get(systemId) as AxisProfile;
    const worldSeeds = worldSets.get(systemId) ?? [];
    const worldSet = new Set(worldSeeds);
    const worldProfiles: AxisProfile[] = [];
    for (let r = 0; worldSet.size >= 2 && r < analysis.resamples; r++)
      worldProfiles.push(
        meanProfile(
          worldSample(r).filter((c) => worldSet.has(c.seed)),
          systemId,
        ),
      );
    const layersOf = (
      compute: (p: AxisProfile, c: HumanCalibration) => number | null,
    ): (number | null)[][] => {
      const world = worldProfiles.map((p) => compute(p, calibration));
      const cal = resampledCalibrations.map((c) => (c === null ? null : compute(profile, c)));
      const combined = worldProfiles.map((p, r) => {
        const c = resampledCalibrations[r];
        return c === null || c === undefined ? null : compute(p, c);
      });
      return [world, cal, combined];
    };
    for (const axis of AXIS_IDS) {
      similarity.push({
        systemId,
        axis,
        worldSeeds,
        h: layered(
          hOf(profile, calibration, axis, transform),
          layersOf((p, c) => hOf(p, c, axis, transform).value),
          analysis.level,
        ),
      });
    }
    chiRows.push({
      systemId,
      worldSeeds,
      chi: layered(
        chiOf(profile, calibration, weights, transform),
        layersOf((p, c) => chiOf(p, c, weights, transform).value),
        analysis.level,
      ),
      capacity: capacityOf.get(systemId) ?? [],
    });
  }
  const checks = calibrationChecks({
    calibration,
    comparison,
    analysisSeed: analysis.seed,
    systems,
    profiles,
    chanceAccuracy: options.chanceAccuracy ?? {},
    imitators: manifest.systems.filter(isImitatorSpec).map((system) => ({
      systemId: system.id,
      description: system.scripted?.description ?? 'SCRIPTED BASELINE imitator',
      capacity: capacityOf.get(system.id) ?? [],
    })),
  });
  return {
    ...base,
    comparison,
    calibrationLabel: calibration.synthetic ? 'SYNTHETIC' : 'human',
    reason: null,
    similarity,
    chi: chiRows,
    ...checks,
  };
}

/**
 * The chart data's run-level CHI note: still null (CHI exists per system, never for a run), but
 * pointing at the per-system CHI when a calibration was frozen.
 */
export function runLevelChiReason(data: ProfilesData, fallback: string): string {
  if (data.comparison === null) return fallback;
  return `no single run-level CHI: CHI is computed per system against ${data.calibrationLabel === 'SYNTHETIC' ? 'the SYNTHETIC' : 'the'} calibration ${data.comparison.calibrationId} and shown with the capacity profile p (section "Capacity p and similarity h", profiles/chi.csv)`;
}
