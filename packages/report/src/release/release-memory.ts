import {
  chartPartOf,
  isMemoryObservation,
  isMemoryTraceLine,
  memoryExtrasOf,
  observationsOf,
  type RunScores,
} from '@chi/analysis';
import type { CaseCandidate } from './case-examples';
import type { ExperimentReleaseInput, ExperimentReleaseOutput } from './release-outputs';
import { rowsCsv } from './release-outputs';

const EXPERIMENT = 'memory';

/**
 * Per-world memory results as CSV, with whether each row enters its curve point's world set:
 * averaging the rows marked `inWorldSet` recomputes the published point.
 */
function perWorldMemoryCsv({ scores, data }: ExperimentReleaseInput): string {
  const curveWorlds = new Map(
    chartPartOf(data, EXPERIMENT).memory.map((p) => [
      `${p.systemId}|${p.condition}|${p.load}`,
      new Set(p.worldSeeds),
    ]),
  );
  const rows = observationsOf(scores, EXPERIMENT, isMemoryObservation).map((o) => ({
    systemId: o.systemId,
    condition: o.condition,
    load: o.load,
    worldSeed: o.worldSeed,
    blockComplete: o.blockComplete,
    inWorldSet:
      curveWorlds.get(`${o.systemId}|${o.condition}|${o.load}`)?.has(o.worldSeed) ?? false,
    r: o.score.factors.r,
    t: o.score.factors.t,
    s: o.score.factors.s,
    u: o.score.factors.u,
    i: o.score.factors.i,
    oneMinusF: o.score.factors.oneMinusF,
    qualityScore: o.score.qualityScore,
    unsupportedAffirmativeLures: o.score.lures.unsupportedAffirmative,
    invalidLures: o.score.lures.invalid,
    lures: o.score.lures.total,
    unusableRequests: o.unusableRequests.map((u) => `${u.requestId}: ${u.reason}`).join('; '),
  }));
  return rowsCsv(rows);
}

/** The notebook each chosen probe was answered from, by the block its world's observation names. */
function probeNotebooks(scores: RunScores): (probe: CaseCandidate) => string | null {
  const blockOf = new Map(
    observationsOf(scores, EXPERIMENT, isMemoryObservation).map((o) => [
      `${o.systemId}|${o.condition}|${o.load}|${o.worldSeed}`,
      o.blockId,
    ]),
  );
  const notebooks = memoryExtrasOf(scores).probeNotebooks;
  return (probe) => {
    const blockId =
      blockOf.get(`${probe.systemId}|${probe.condition}|${probe.load}|${probe.worldSeed}`) ?? '';
    return notebooks.get(`${probe.systemId}|${blockId}|${probe.condition}`) ?? null;
  };
}

/**
 * The memory experiment's release files: its observations, its per-world CSV, its probe count
 * in the scoring parameters, and its probes as the case examples (a complete block's only).
 */
export const memoryReleaseOutput: ExperimentReleaseOutput = {
  experimentId: EXPERIMENT,
  scoreFiles: (scores) => [
    ['scores/memory.jsonl', observationsOf(scores, EXPERIMENT, isMemoryObservation)],
  ],
  files: (input) => [['chart-data/per-world-memory.csv', perWorldMemoryCsv(input)]],
  scoringParameters: (manifest) => ({
    probesPerStratum: manifest.experiments.memory?.probesPerStratum ?? null,
  }),
  profiles: true,
  cases: {
    candidate(line) {
      if (!line.blockComplete || !isMemoryTraceLine(line)) return null;
      const { systemId, condition, load, worldSeed, trace } = line;
      return { systemId, condition, load, worldSeed, trace };
    },
    notebooks: probeNotebooks,
  },
};
