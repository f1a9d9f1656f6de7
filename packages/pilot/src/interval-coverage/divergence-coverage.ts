import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  clusterBootstrap,
  type IntervalMethod,
  simultaneousBands,
  studentizedClusterMeans,
} from '@chi/stats';
import {
  DIVERGENCE_DYNAMICS,
  DIVERGENCE_SERIES,
  type DivergenceWorldValue,
  divergenceWorldValues,
} from '../divergence/analyze';
import { notEstimableReason } from '../divergence/estimable';
import { EXPECTED_DYNAMICS, expectedSeries } from '../divergence/known-truth';
import {
  DIVERGENCE_SCRIPTED_SEED,
  type DivergenceRecomputed,
  runDivergenceProtocol,
} from '../divergence/run';
import { divergenceSystemSpec } from '../divergence/scripted-divergence';
import type { CoverageObservation } from './coverage-table';

/**
 * An interval method the harness reads: `clusterBootstrap`'s `IntervalMethod`s, `'studentized'`
 * (`studentizedClusterMeans`, the bootstrap-t over worlds), or `'simultaneous'` (the release's
 * family-wise max-|t| band of the cell's family: the grid of every series at every checkpoint, or
 * the dynamics table), all from the same seed's draws.
 */
export type CoverageMethod = IntervalMethod | 'studentized' | 'simultaneous';

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
 * does), read by each method from the same replicates' seed and draws. A cell the release gives no
 * interval (too few defined worlds, `notEstimableReason`) has none here either.
 */
export function divergenceObservations(
  values: readonly DivergenceWorldValue[],
  options: {
    readonly checkpoints: readonly number[];
    readonly seed: number;
    readonly resamples: number;
    readonly level: number;
    readonly methods: readonly CoverageMethod[];
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
      const read =
        method === 'studentized'
          ? studentizedCells
          : method === 'simultaneous'
            ? simultaneousCells
            : bootstrapCells;
      const intervals = read(clusters, truths, options, method);
      return truths.map(({ statistic, group, truth }) => {
        // The release's rule: too few defined worlds, no interval (docs/protocol.md).
        const defined = clusters.filter((cluster) => (cluster.get(statistic) ?? null) !== null);
        const tooFew = notEstimableReason(defined.length, clusters.length) !== null;
        const found = intervals[statistic];
        return {
          cell: `${systemId} ${statistic}`,
          group: `${group} (${systemId})`,
          method,
          truth,
          estimate: found?.estimate ?? null,
          lower: tooFew ? null : (found?.interval?.lower ?? null),
          upper: tooFew ? null : (found?.interval?.upper ?? null),
        };
      });
    });
  });
}

type CellIntervals = Readonly<
  Record<
    string,
    {
      readonly estimate: number | null;
      readonly interval: { readonly lower: number; readonly upper: number } | null;
    }
  >
>;
type Truths = readonly { readonly statistic: string }[];
type Settings = { readonly seed: number; readonly resamples: number; readonly level: number };

function bootstrapCells(
  clusters: readonly Cluster[],
  truths: Truths,
  options: Settings,
  method: CoverageMethod,
): CellIntervals {
  return clusterBootstrap({
    clusters,
    seed: options.seed,
    resamples: options.resamples,
    level: options.level,
    method: method as IntervalMethod,
    statistic: (sample) =>
      Object.fromEntries(
        truths.map(({ statistic }) => [statistic, meanDefined(sample, statistic)]),
      ),
  });
}

/**
 * The release's simultaneous bands (`analyze.ts`, `familyBands`): one bootstrap of every statistic
 * of the system (the same seed and multisets), then max-|t| over each family: every series at
 * every checkpoint (task accuracy apart), and every dynamic, each family of the cells with enough
 * defined worlds for an interval. Bands are per family, whatever subset of cells has a truth.
 */
function simultaneousCells(
  clusters: readonly Cluster[],
  _truths: Truths,
  options: Settings,
): CellIntervals {
  const names = [...new Set(clusters.flatMap((cluster) => [...cluster.keys()]))];
  const outputs: Record<string, number | null>[] = [];
  const boot = clusterBootstrap({
    clusters,
    seed: options.seed,
    resamples: options.resamples,
    level: options.level,
    statistic: (sample) => {
      const output = Object.fromEntries(names.map((name) => [name, meanDefined(sample, name)]));
      outputs.push(output);
      return output;
    },
  });
  const replicates = outputs.slice(1);
  const estimable = (name: string) =>
    notEstimableReason(
      clusters.filter((cluster) => (cluster.get(name) ?? null) !== null).length,
      clusters.length,
    ) === null;
  const grid = names.filter(
    (name) => name.includes('@') && !name.startsWith('accuracy:') && estimable(name),
  );
  const table = (DIVERGENCE_DYNAMICS as readonly string[]).filter(
    (name) => names.includes(name) && estimable(name),
  );
  const cells: Record<string, CellIntervals[string]> = {};
  for (const family of [grid, table]) {
    const result = simultaneousBands({
      estimates: family.map((name) => boot[name]?.estimate ?? null),
      replicates: replicates.map((row) => family.map((name) => row[name] ?? null)),
      level: options.level,
    });
    family.forEach((name, index) => {
      const band = result.bands[index] ?? null;
      cells[name] = {
        estimate: boot[name]?.estimate ?? null,
        interval: band === null ? null : { lower: band.lower, upper: band.upper },
      };
    });
  }
  return cells;
}

function studentizedCells(
  clusters: readonly Cluster[],
  truths: Truths,
  options: Settings,
): CellIntervals {
  return studentizedClusterMeans({
    values: Object.fromEntries(
      truths.map(({ statistic }) => [
        statistic,
        clusters.map((cluster) => cluster.get(statistic) ?? null),
      ]),
    ),
    seed: options.seed,
    resamples: options.resamples,
    level: options.level,
  });
}

/** What a seed set's run leaves for the intervals: its world values and analysis settings. */
export interface DivergenceSeedSetValues {
  readonly checkpoints: readonly number[];
  readonly seed: number;
  readonly level: number;
  readonly values: readonly DivergenceWorldValue[];
}

/**
 * Runs the divergence protocol offline with the scripted systems in a temporary folder (world
 * seeds from `rootSeed`) and returns its world values. The run's own release uses one resample
 * (it is discarded). With `cache`, the values are read from
 * `<cache>/world-values-<rootSeed>-<worlds>.json` when present and written there otherwise.
 */
export async function divergenceSeedSetValues(options: {
  readonly rootSeed: number;
  readonly worlds: number;
  readonly cache?: string | null;
  /**
   * Only this scripted divergence system (`--only`; cached as
   * `world-values-<system>-<rootSeed>-<worlds>.json`). Its instances draw from per-instance
   * streams (system seed, world, arm), so its values do not depend on the roster.
   */
  readonly only?: string | null;
}): Promise<DivergenceSeedSetValues> {
  const only = options.only ?? null;
  const cached = options.cache
    ? join(
        options.cache,
        `world-values-${only === null ? '' : `${only}-`}${options.rootSeed}-${options.worlds}.json`,
      )
    : null;
  if (cached !== null && existsSync(cached)) {
    return JSON.parse(readFileSync(cached, 'utf8')) as DivergenceSeedSetValues;
  }
  const root = mkdtempSync(join(tmpdir(), 'chi-coverage-'));
  try {
    // runDivergenceProtocol returns the run's recomputation (entries and exclusions included).
    const run = (await runDivergenceProtocol({
      runDir: join(root, 'run'),
      worlds: options.worlds,
      rootSeed: options.rootSeed,
      resamples: 1,
      now: () => new Date('2026-09-01T00:00:00.000Z'),
      ...(only === null ? {} : { systems: [divergenceSystemSpec(only, DIVERGENCE_SCRIPTED_SEED)] }),
    })) as DivergenceRecomputed;
    const result: DivergenceSeedSetValues = {
      checkpoints: run.manifest.checkpoints.map(({ checkpoint }) => checkpoint),
      seed: run.manifest.analysis.seed,
      level: run.manifest.analysis.level,
      values: divergenceWorldValues(run.manifest, run.entries, run.excluded),
    };
    if (cached !== null && options.cache) {
      mkdirSync(options.cache, { recursive: true });
      writeFileSync(cached, JSON.stringify(result));
    }
    return result;
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/**
 * One seed set: its world values (run or cached), then every known-truth cell by each method
 * with the manifest's analysis seed and level and `resamples`.
 */
export async function divergenceSeedSet(options: {
  readonly rootSeed: number;
  readonly worlds: number;
  readonly resamples: number;
  readonly methods: readonly CoverageMethod[];
  readonly cache?: string | null;
  readonly only?: string | null;
}): Promise<CoverageObservation[]> {
  const run = await divergenceSeedSetValues(options);
  return divergenceObservations(run.values, {
    checkpoints: run.checkpoints,
    seed: run.seed,
    resamples: options.resamples,
    level: run.level,
    methods: options.methods,
  });
}
