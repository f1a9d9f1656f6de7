import { HISTORY_IDS } from '@chi/spec/internal';
import type { ChartData, IntervalEstimate, MemoryPoint } from '../chart-data';
import { type RunChartData, runChartData } from '../chart-parts';

/** An estimate over `worlds` used worlds, of `completeWorlds` complete in its cell and 3 planned. */
function est(
  estimate: number | null,
  worlds: number,
  spread = 0.05,
  completeWorlds = worlds,
): IntervalEstimate {
  const counts = { worlds, completeWorlds, plannedWorlds: 3, undefinedReplicates: 0 };
  if (estimate === null) {
    return { estimate, lower: null, upper: null, intervalNote: 'undefined_estimate', ...counts };
  }
  if (worlds < 2) {
    return {
      estimate,
      lower: null,
      upper: null,
      intervalNote: 'fewer_than_two_complete_worlds',
      ...counts,
    };
  }
  return {
    estimate,
    lower: Math.max(-1, estimate - spread),
    upper: Math.min(1, estimate + spread),
    intervalNote: null,
    ...counts,
  };
}

function ratio(numerator: number, denominator: number) {
  return { numerator, denominator, rate: denominator === 0 ? null : numerator / denominator };
}

/** A point of a curve over `worlds` (the curve's world set) of `complete` complete at this load. */
function point(
  systemId: string,
  condition: MemoryPoint['condition'],
  load: number,
  q: number,
  worlds: number,
  complete = worlds,
): MemoryPoint {
  return {
    systemId,
    condition,
    load,
    blocks: { planned: 3, complete, incomplete: 3 - complete, missing: 0 },
    worldSeeds: [1, 2, 3].slice(0, worlds),
    qualityScore: est(q, worlds, 0.05, complete),
    meanWithinWorldQualityScore: est(Math.max(0, q - 0.04), worlds, 0.05, complete),
    factors: {
      r: est(Math.min(1, q + 0.05), worlds, 0.05, complete),
      t: est(q, worlds, 0.05, complete),
      s: est(Math.max(0, q - 0.1), worlds, 0.05, complete),
      u: est(q, worlds, 0.05, complete),
      i: est(q, worlds, 0.05, complete),
      oneMinusF: est(1, worlds, 0, complete),
    },
    strata: {
      r: ratio(7, 8),
      t: ratio(6, 8),
      s: ratio(5, 8),
      u: ratio(6, 8),
      i: ratio(6, 8),
      f: ratio(0, 8),
    },
    unsupportedAffirmativeLures: ratio(0, 8),
    invalidLures: ratio(0, 8),
    exploratory: true,
  };
}

/** {@link sampleChartDataFile} as the chart data in memory: each experiment's part under its ID. */
export function sampleChartData(): RunChartData {
  return runChartData(sampleChartDataFile());
}

// long-function: one literal chart data set, read top to bottom like the chart-data.json it stands for
/**
 * A small hand-built chart data set in the layout of `chart-data.json` (synthetic: two scripted systems, loads 32 and 64, controls, history,
 * behavior and taxonomy) for figure and report tests that must not depend on the analysis.
 */
export function sampleChartDataFile(): ChartData {
  const systems = ['capacity-keeper', 'perfect'];
  const memory: MemoryPoint[] = [];
  for (const id of systems) {
    const base = id === 'perfect' ? 1 : 0.85;
    // load 64 has one complete world, so the whole notebook curve rests on that one world
    memory.push(
      point(id, 'notebook', 32, base, 1, 3),
      point(id, 'notebook', 64, base - 0.2 * Number(id !== 'perfect'), 1),
    );
    memory.push(point(id, 'blank', 32, 0.1, 3), point(id, 'oracle', 32, 1, 3));
  }
  return {
    kind: 'chi-chart-data',
    schemaVersion: 1,
    run: {
      protocol: 'CPLOM longitudinal model pilot, protocol 2026-09 v1',
      runId: '20260901T000000Z-0123abcd',
      manifestSha256: '0'.repeat(64),
      evidenceClass: 'scripted_baseline',
      systems: systems.map((id) => ({
        id,
        model: `scripted/${id}`,
        kind: 'scripted',
        evidenceClass: 'scripted_baseline' as const,
        uncappedNotebook: id === 'perfect',
        providers: [],
        reasoningEffort: null,
        maxOutputTokens: 4096,
        safetyPrice: null,
        returned: [{ model: `scripted/${id}`, provider: 'chi-scripted', responses: 10 }],
      })),
      worldSeeds: [1, 2, 3],
      notebookCapBytes: 6000,
      createdAt: '2026-09-01T00:00:00.000Z',
      lastActivityAt: '2026-09-01T00:05:00.000Z',
      analysis: {
        seed: 20260901,
        resamples: 200,
        level: 0.95,
        taus: [0.7, 0.8, 0.9],
        primaryCheckpoint: 3,
        exploratoryBelowWorlds: 30,
      },
      transport: {
        ceilingUsd: 0,
        deadlineMs: 180_000,
        maxRetries: 2,
        retryAfterCapMs: 60_000,
        reservationMargin: 0.25,
      },
      calibrationId: null,
      policies: null,
      featureSchemas: [],
    },
    memory,
    eimc: systems.flatMap((systemId) =>
      [0.7, 0.8, 0.9].map((tau) => ({
        systemId,
        tau,
        value: systemId === 'perfect' ? 64 : tau <= 0.8 ? 32 : null,
        status:
          systemId === 'perfect'
            ? ('lower_bound' as const)
            : tau <= 0.8
              ? ('capacity' as const)
              : ('no_passing_load' as const),
        testedLoads: [32, 64],
        passingLoads: systemId === 'perfect' ? [32, 64] : tau <= 0.8 ? [32] : [],
        nonmonotone: false,
        sustainedPrefix: systemId === 'perfect' ? 64 : tau <= 0.8 ? 32 : null,
        worlds: 1,
        worldSeeds: [1],
        lower: null, // one world: no interval
        upper: null, // one world: no interval
        noPassingReplicates: systemId === 'perfect' || tau <= 0.8 ? 0 : 200,
        resamples: 200,
      })),
    ),
    resources: systems.flatMap((systemId) => [
      {
        systemId,
        experiment: 'memory' as const,
        load: 32,
        requests: 6,
        failedRequests: 0,
        promptTokens: 0,
        completionTokens: 0,
        reasoningTokens: 0,
        requestsWithoutUsage: 6,
        costUsd: 0,
        latencyMsMedian: 0,
        latencyMsMax: 0,
      },
      {
        systemId,
        experiment: 'memory' as const,
        load: 64,
        requests: 6,
        failedRequests: 1,
        promptTokens: 0,
        completionTokens: 0,
        reasoningTokens: 0,
        requestsWithoutUsage: 6,
        costUsd: 0,
        latencyMsMedian: 0,
        latencyMsMax: 0,
      },
    ]),
    history: systems.flatMap((systemId) =>
      HISTORY_IDS.flatMap((history) =>
        [0, 1, 2, 3, 4].map((checkpoint) => ({
          systemId,
          history,
          checkpoint,
          blocks: { planned: 3, complete: 3, incomplete: 0, missing: 0 },
          accuracy: est(checkpoint === 4 ? 0.75 : 1, 3),
          unknownRate: est(checkpoint === 0 ? 1 : 0, 3),
          invalid: ratio(0, 12),
          validVectors: 3,
        })),
      ),
    ),
    historyDistances: systems.flatMap((systemId) =>
      [0, 1, 2, 3, 4].map((checkpoint) => ({
        systemId,
        checkpoint,
        worldSeeds: [1, 2, 3],
        distanceAB: est(checkpoint === 0 ? 0 : 1, 3),
        distanceAA2: est(0, 3),
        divergence: est(checkpoint === 0 ? 0 : systemId === 'perfect' ? 1 : null, 3),
      })),
    ),
    historyDynamics: systems.flatMap((systemId) =>
      HISTORY_IDS.map((history) => ({
        systemId,
        history,
        continuity: est(1, 3),
        correctionResponse: est(0.75, 3),
      })),
    ),
    historyVectors: systems.flatMap((systemId) =>
      HISTORY_IDS.flatMap((history) =>
        [0, 1, 2, 3, 4].map((checkpoint) => ({
          systemId,
          worldSeed: 1,
          history,
          checkpoint,
          blockComplete: true,
          coordinates:
            checkpoint === 0
              ? [0.5, 0.5, 0.5, 0.5]
              : history === 'B'
                ? [1, 1, 0, null]
                : ([0, 0, 1, 1] as (0 | 0.5 | 1 | null)[]),
        })),
      ),
    ),
    behavior: systems.flatMap((systemId) =>
      (['R', 'C', 'A', 'I', 'A-frame-change'] as const).map((indicator) => ({
        systemId,
        indicator,
        blocks: { planned: 3, complete: 3, incomplete: 0, missing: 0 },
        value: est(indicator === 'A-frame-change' ? 0 : 1, 3),
        pooled: indicator === 'A-frame-change' ? ratio(0, 12) : ratio(24, 24),
        invalid: ratio(0, 24),
      })),
    ),
    taxonomy: systems.flatMap((systemId) => [
      {
        systemId,
        condition: 'notebook' as const,
        load: 32,
        stratum: 'r' as const,
        reason: 'correct',
        pass: true,
        count: 20,
      },
      {
        systemId,
        condition: 'notebook' as const,
        load: 32,
        stratum: 'f' as const,
        reason: 'correct_abstention',
        pass: true,
        count: 24,
      },
      {
        systemId,
        condition: 'notebook' as const,
        load: 32,
        stratum: 't' as const,
        reason: 'stale',
        pass: false,
        count: 4,
      },
      {
        systemId,
        condition: 'notebook' as const,
        load: 64,
        stratum: 'r' as const,
        reason: 'over_abstained',
        pass: false,
        count: 8,
      },
      {
        systemId,
        condition: 'blank' as const,
        load: 32,
        stratum: 'r' as const,
        reason: 'over_abstained',
        pass: false,
        count: 24,
      },
    ]),
    missingness: {
      blocks: [
        {
          blockId: 'memory.w1.n32',
          experiment: 'memory',
          worldSeed: 1,
          load: 32,
          status: 'complete',
          reasons: [],
        },
        {
          blockId: 'memory.w2.n64',
          experiment: 'memory',
          worldSeed: 2,
          load: 64,
          status: 'incomplete',
          reasons: ['perfect.memory.w2.n64.probe.b0: http_retryable after 2 retries'],
        },
      ],
      failures: [{ category: 'infrastructure', failure: 'http_retryable', count: 1 }],
      smoke: [],
    },
    chi: {
      value: null,
      reason: 'No human calibration is supplied: CHI is undefined (null) throughout the pilot.',
    },
  };
}
