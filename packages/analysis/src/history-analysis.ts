import type { CheckpointAccuracy, HistoryId } from '@chi/spec';
import { type ExperienceDivergence, HISTORY_IDS } from '@chi/spec/internal';
import {
  type AnalysisContext,
  type ExperimentAnalysis,
  ratio,
  type WorldContribution,
  worldIndex,
} from './analysis-context';
import type {
  BootstrapRegistry,
  BootstrapResults,
  Estimand,
  MeanReader,
  WorldCounts,
} from './bootstrap-registry';
import type { HistoryDistance, HistoryDynamics, HistoryPoint, HistoryVector } from './chart-data';
import type { ChartFilePart } from './chart-file-part';
import { type HistoryObservation, isHistoryObservation, observationsOf } from './run-scores';

const CHECKPOINTS = [0, 1, 2, 3, 4] as const;
type Checkpoint = (typeof CHECKPOINTS)[number];

/** The estimands of one system's history observations. */
interface SystemHistoryEstimands {
  readonly systemId: string;
  /** Accuracy and explicit-unknown rate per history and checkpoint. */
  readonly checkpoints: Readonly<
    Record<HistoryId, readonly { readonly accuracy: Estimand; readonly unknown: Estimand }[]>
  >;
  readonly continuity: Readonly<Record<HistoryId, Estimand>>;
  readonly correction: Readonly<Record<HistoryId, Estimand>>;
  /** D(A,B), D(A,A2) and their difference per checkpoint. */
  readonly distances: readonly {
    readonly ab: Estimand;
    readonly aa2: Estimand;
    readonly divergence: Estimand;
  }[];
}

/** The history experiment's estimands, one entry per system with history observations. */
export type HistoryEstimands = readonly SystemHistoryEstimands[];

const historyCell = worldIndex<HistoryObservation>((o) => o.systemId);

/** A world's complete history observation of one system. */
export function historyIn(
  world: WorldContribution,
  systemId: string,
): HistoryObservation | undefined {
  return historyCell(world.observations(historyAnalysis.id), systemId);
}

/** The history experiment's part of the chart data. */
export interface HistoryPart {
  readonly history: HistoryPoint[];
  readonly historyDistances: HistoryDistance[];
  readonly historyDynamics: HistoryDynamics[];
  readonly historyVectors: HistoryVector[];
}

/** Where the history part sits in `chart-data.json` (see `CHART_FILE_PARTS`). */
export const historyChartFile: ChartFilePart = {
  experimentId: 'history',
  fields: [
    'history',
    'historyDistances',
    'historyDynamics',
    'historyVectors',
  ] satisfies (keyof HistoryPart)[],
  empty: {
    history: [],
    historyDistances: [],
    historyDynamics: [],
    historyVectors: [],
  } satisfies HistoryPart,
};

function defineSystem(
  context: AnalysisContext,
  registry: BootstrapRegistry,
  systemId: string,
): SystemHistoryEstimands {
  const { sets } = context;
  const observation = (seed: number) =>
    historyIn(context.world(seed), systemId) as HistoryObservation;
  const over = (worlds: readonly number[], pick: (o: HistoryObservation) => number): MeanReader =>
    registry.meanOf(new Set(worlds), (seed) => pick(observation(seed)));
  const checkpoints = {} as Record<HistoryId, { accuracy: Estimand; unknown: Estimand }[]>;
  const continuity = {} as Record<HistoryId, Estimand>;
  const correction = {} as Record<HistoryId, Estimand>;
  for (const h of HISTORY_IDS) {
    checkpoints[h] = CHECKPOINTS.map((k) => {
      const accuracy = (o: HistoryObservation) =>
        o.score.checkpoints[k]?.histories[h].accuracy as CheckpointAccuracy;
      const worlds = sets.historyCheckpoint(systemId, h, k);
      return {
        accuracy: registry.define(
          `h|${systemId}|${h}|${k}|acc`,
          over(worlds, (o) => accuracy(o).accuracy.rate as number),
        ),
        unknown: registry.define(
          `h|${systemId}|${h}|${k}|unk`,
          over(worlds, (o) => accuracy(o).explicitUnknownRate.rate as number),
        ),
      };
    });
    continuity[h] = registry.define(
      `y|${systemId}|${h}|cont`,
      over(sets.continuity(systemId, h), (o) => o.score.continuity[h].primary.value as number),
    );
    correction[h] = registry.define(
      `y|${systemId}|${h}|corr`,
      over(sets.correction(systemId, h), (o) => o.score.correctionResponse[h].value as number),
    );
  }
  const distances = CHECKPOINTS.map((k) => {
    const divergence = (o: HistoryObservation) =>
      o.score.checkpoints[k]?.divergence as ExperienceDivergence;
    const worlds = sets.distances(systemId, k);
    const ab = over(worlds, (o) => divergence(o).differentHistories.value as number);
    const aa2 = over(worlds, (o) => divergence(o).sameHistory.value as number);
    return {
      ab: registry.define(`d|${systemId}|${k}|AB`, ab),
      aa2: registry.define(`d|${systemId}|${k}|AA2`, aa2),
      // The difference of the two displayed means: divergence == D(A,B) - D(A,A2) exactly.
      divergence: registry.define(`d|${systemId}|${k}|div`, (means) => {
        const b = ab(means);
        const a2 = aa2(means);
        return b === null || a2 === null ? null : b - a2;
      }),
    };
  });
  return { systemId, checkpoints, continuity, correction, distances };
}

// long-function: fills one system's three history tables (checkpoints, distances, dynamics) from one set of estimands; left whole while the analysis is being ported to experiment modules (issue 18)
function systemResults(
  context: AnalysisContext,
  results: BootstrapResults,
  estimands: SystemHistoryEstimands,
  part: HistoryPart,
): void {
  const { sets } = context;
  const { systemId } = estimands;
  const counts = context.blockCounts('history', null);
  const complete = sets.historyComplete(systemId).length;
  const worldCounts = (worlds: readonly number[]): WorldCounts => ({
    used: worlds.length,
    complete,
    planned: counts.planned,
  });
  const observations = observationsOf(context.scores, 'history', isHistoryObservation).filter(
    (o) => o.blockComplete && o.systemId === systemId,
  );
  for (const h of HISTORY_IDS) {
    for (const k of CHECKPOINTS) {
      const at = estimands.checkpoints[h][k] as { accuracy: Estimand; unknown: Estimand };
      const results_ = observations
        .map((o) => o.score.checkpoints[k]?.histories[h])
        .filter((r) => r !== undefined);
      const worlds = worldCounts(sets.historyCheckpoint(systemId, h, k));
      part.history.push({
        systemId,
        history: h,
        checkpoint: k,
        blocks: counts,
        accuracy: results.interval(at.accuracy, worlds),
        unknownRate: results.interval(at.unknown, worlds),
        invalid: ratio(
          results_.reduce((s, r) => s + r.accuracy.invalidRate.numerator, 0),
          results_.reduce((s, r) => s + r.accuracy.invalidRate.denominator, 0),
        ),
        validVectors: results_.filter((r) => r.vector.invalidIndices.length === 0).length,
      });
    }
  }
  for (const k of CHECKPOINTS) {
    const worlds = worldCounts(sets.distances(systemId, k));
    const at = estimands.distances[k as Checkpoint] as SystemHistoryEstimands['distances'][number];
    part.historyDistances.push({
      systemId,
      checkpoint: k,
      worldSeeds: [...sets.distances(systemId, k)],
      distanceAB: results.interval(at.ab, worlds),
      distanceAA2: results.interval(at.aa2, worlds),
      divergence: results.interval(at.divergence, worlds),
    });
  }
  for (const h of HISTORY_IDS) {
    part.historyDynamics.push({
      systemId,
      history: h,
      continuity: results.interval(
        estimands.continuity[h],
        worldCounts(sets.continuity(systemId, h)),
      ),
      correctionResponse: results.interval(
        estimands.correction[h],
        worldCounts(sets.correction(systemId, h)),
      ),
    });
  }
}

/** Every system's per-world decision vectors (complete blocks or not), system then world order. */
function historyVectors(context: AnalysisContext): HistoryVector[] {
  const { systems } = context;
  return observationsOf(context.scores, 'history', isHistoryObservation)
    .slice()
    .sort(
      (a, b) =>
        systems.indexOf(a.systemId) - systems.indexOf(b.systemId) || a.worldSeed - b.worldSeed,
    )
    .flatMap((o) =>
      HISTORY_IDS.flatMap((history) =>
        CHECKPOINTS.map((checkpoint) => ({
          systemId: o.systemId,
          worldSeed: o.worldSeed,
          history,
          checkpoint,
          blockComplete: o.blockComplete,
          coordinates: o.score.checkpoints[checkpoint]?.histories[history].vector.coordinates ?? [],
        })),
      ),
    );
}

/**
 * The history experiment's analysis: accuracy and explicit-unknown rate per history and
 * checkpoint, the distances D(A,B) and D(A,A2) with their difference, continuity and correction
 * response, and the per-world decision vectors.
 */
export const historyAnalysis: ExperimentAnalysis<HistoryEstimands, HistoryPart> = {
  id: 'history',
  estimands(context, registry) {
    const observations = observationsOf(context.scores, 'history', isHistoryObservation);
    return context.systems
      .filter((id) => observations.some((o) => o.systemId === id))
      .map((systemId) => defineSystem(context, registry, systemId));
  },
  results(context, estimands, results) {
    const part: HistoryPart = {
      history: [],
      historyDistances: [],
      historyDynamics: [],
      historyVectors: historyVectors(context),
    };
    for (const system of estimands) systemResults(context, results, system, part);
    return part;
  },
};
