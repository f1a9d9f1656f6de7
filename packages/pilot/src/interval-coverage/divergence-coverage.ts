import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clusterBootstrap, type IntervalMethod } from '@chi/stats';
import {
  DIVERGENCE_DYNAMICS,
  DIVERGENCE_SERIES,
  type DivergenceWorldValue,
  divergenceWorldValues,
} from '../divergence/analyze';
import { EXPECTED_DYNAMICS, expectedSeries } from '../divergence/known-truth';
import { type DivergenceRecomputed, runDivergenceProtocol } from '../divergence/run';
import type { CoverageObservation } from './coverage-table';

/** The cells of one system with a derived true value: every series x checkpoint, every dynamic. */
export function divergenceTruths(
  systemId: string,
  checkpoints: readonly number[],
): { readonly statistic: string; readonly group: string; readonly truth: number }[] {
  const series = DIVERGENCE_SERIES.flatMap((name) =>
    checkpoints.map((checkpoint) => ({
      statistic: `${name}@${checkpoint}`,
      group: 'divergence series',
      truth: expectedSeries(systemId, name, checkpoint),
    })),
  );
  const known = EXPECTED_DYNAMICS[systemId] ?? {};
  const dynamics = DIVERGENCE_DYNAMICS.flatMap((name) =>
    known[name] === undefined
      ? []
      : [{ statistic: name, group: 'divergence dynamics', truth: known[name] as number }],
  );
  return [...series, ...dynamics];
}

type Cluster = ReadonlyMap<string, number | null>;

function meanDefined(sample: readonly Cluster[], name: string): number | null {
  let sum = 0;
  let count = 0;
  for (const cluster of sample) {
    const value = cluster.get(name) ?? null;
    if (value === null) continue;
    sum += value;
    count++;
  }
  return count === 0 ? null : sum / count;
}

/**
 * The observations of one seed set's world values: per system, the world-cluster bootstrap of
 * every cell with a derived truth (mean over the worlds where it is defined, as the analysis
 * does), read by each method from the same replicates' seed and draws.
 */
export function divergenceObservations(
  values: readonly DivergenceWorldValue[],
  options: {
    readonly checkpoints: readonly number[];
    readonly seed: number;
    readonly resamples: number;
    readonly level: number;
    readonly methods: readonly IntervalMethod[];
  },
): CoverageObservation[] {
  const systems = [...new Set(values.map((value) => value.systemId))];
  return systems.flatMap((systemId) => {
    const truths = divergenceTruths(systemId, options.checkpoints);
    const worlds = new Map<number, Map<string, number | null>>();
    for (const value of values) {
      if (value.systemId !== systemId) continue;
      const world = worlds.get(value.worldSeed) ?? new Map<string, number | null>();
      world.set(value.statistic, value.value);
      worlds.set(value.worldSeed, world);
    }
    const clusters = [...worlds.values()];
    return options.methods.flatMap((method) => {
      const boot = clusterBootstrap({
        clusters,
        seed: options.seed,
        resamples: options.resamples,
        level: options.level,
        method,
        statistic: (sample) =>
          Object.fromEntries(
            truths.map(({ statistic }) => [statistic, meanDefined(sample, statistic)]),
          ),
      });
      return truths.map(({ statistic, group, truth }) => {
        const estimate = boot[statistic];
        const interval = estimate?.interval ?? null;
        return {
          cell: `${systemId} ${statistic}`,
          group,
          method,
          truth,
          estimate: estimate?.estimate ?? null,
          lower: interval?.lower ?? null,
          upper: interval?.upper ?? null,
        };
      });
    });
  });
}

/**
 * Runs the divergence protocol offline with the scripted systems in a temporary folder (world
 * seeds from `rootSeed`), then reads every known-truth cell by each method from the run's world
 * values. The run's own release uses few resamples (it is discarded); the intervals measured here
 * use `resamples` with the manifest's analysis seed and level.
 */
export async function divergenceSeedSet(options: {
  readonly rootSeed: number;
  readonly worlds: number;
  readonly resamples: number;
  readonly methods: readonly IntervalMethod[];
}): Promise<CoverageObservation[]> {
  const root = mkdtempSync(join(tmpdir(), 'chi-coverage-'));
  try {
    // runDivergenceProtocol returns the run's recomputation (entries and exclusions included).
    const run = (await runDivergenceProtocol({
      runDir: join(root, 'run'),
      worlds: options.worlds,
      rootSeed: options.rootSeed,
      resamples: 1,
      now: () => new Date('2026-09-01T00:00:00.000Z'),
    })) as DivergenceRecomputed;
    const values = divergenceWorldValues(run.manifest, run.entries, run.excluded);
    return divergenceObservations(values, {
      checkpoints: run.manifest.checkpoints.map(({ checkpoint }) => checkpoint),
      seed: run.manifest.analysis.seed,
      resamples: options.resamples,
      level: run.manifest.analysis.level,
      methods: options.methods,
    });
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
