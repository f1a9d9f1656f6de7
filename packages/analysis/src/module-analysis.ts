import type { RunManifest } from '@chi/spec';
import { type BootstrapEstimate, weightedMeansBootstrap } from '@chi/stats';
import type { ModuleScores } from './run-scores';
import { plannedWorlds } from './world-sets';

/** One reported world mean of a module experiment: one system, one estimand. */
export interface ModuleEstimate {
  readonly experiment: string;
  readonly systemId: string;
  readonly evidenceClass: string;
  readonly column: string;
  readonly label: string;
  /** Mean over the worlds where every block is complete and the value is defined; null without any. */
  readonly estimate: number | null;
  readonly lower: number | null;
  readonly upper: number | null;
  readonly level: number;
  /** Why there is no interval (fewer than two worlds, no defined replicate), or null. */
  readonly intervalOmittedReason: string | null;
  /** Worlds the mean uses. */
  readonly worlds: number;
  /** Worlds of the experiment that were planned for the run. */
  readonly plannedWorlds: number;
}

interface Cell {
  readonly systemId: string;
  readonly column: string;
  readonly label: string;
}

/**
 * Packs the world values: per cell (system x estimand) two columns, value x 1[used] and 1[used],
 * so a cell's mean over its world set is mean(value x 1) / mean(1) on any resample (the fast path
 * of `@chi/stats`, drawing the same multisets as `clusterBootstrap`).
 */
function packWorlds(scores: ModuleScores, seeds: readonly number[], cells: readonly Cell[]) {
  const row = new Map(seeds.map((seed, index) => [seed, index]));
  const data = new Float64Array(seeds.length * cells.length * 2);
  const used = cells.map(() => 0);
  const cellIndex = new Map(cells.map((cell, index) => [`${cell.systemId}|${cell.column}`, index]));
  for (const observation of scores.observations) {
    if (!observation.blockComplete) continue;
    for (const [column, value] of Object.entries(observation.values)) {
      const index = cellIndex.get(`${observation.systemId}|${column}`);
      const at = row.get(observation.worldSeed);
      if (index === undefined || at === undefined || value === null) continue;
      const offset = (at * cells.length + index) * 2;
      data[offset] = value;
      data[offset + 1] = 1;
      used[index] = (used[index] as number) + 1;
    }
  }
  return { data, used };
}

function omittedReason(worlds: number, estimate: BootstrapEstimate | undefined): string | null {
  if (worlds === 0) return 'no complete world with a defined value';
  if (worlds < 2) return 'fewer than two complete worlds with a defined value';
  return estimate?.intervalOmittedReason ?? null;
}

/**
 * The estimands of one module experiment with percentile intervals from a world-cluster bootstrap
 * over every planned world of the run, with the manifest's analysis seed, resamples and level: the
 * same clusters and seed as the release's other estimates, so every replicate draws the same
 * multiset of worlds for every system and estimand (pairing preserved).
 */
export function analyzeModule(manifest: RunManifest, scores: ModuleScores): ModuleEstimate[] {
  const seeds = plannedWorlds(manifest.worldSeeds, scores.observations);
  const cells: Cell[] = manifest.systems.flatMap((system) =>
    scores.scorer.estimands.map(({ column, label }) => ({ systemId: system.id, column, label })),
  );
  const { data, used } = packWorlds(scores, seeds, cells);
  const names = cells.map(
    (cell) => `${scores.scorer.experimentId}|${cell.systemId}|${cell.column}`,
  );
  const estimates =
    seeds.length === 0 || cells.length === 0
      ? {}
      : weightedMeansBootstrap({
          data,
          clusters: seeds.length,
          width: cells.length * 2,
          names,
          statistic: (means, out) => {
            for (let index = 0; index < cells.length; index++) {
              const weight = means[index * 2 + 1] as number;
              out[index] = weight > 0 ? (means[index * 2] as number) / weight : Number.NaN;
            }
          },
          seed: manifest.analysis.seed,
          resamples: manifest.analysis.resamples,
          level: manifest.analysis.level,
        });
  const planned = new Set(scores.observations.map((o) => o.worldSeed).concat(manifest.worldSeeds))
    .size;
  return cells.map((cell, index) => {
    const estimate = (estimates as Record<string, BootstrapEstimate>)[names[index] as string];
    const worlds = used[index] as number;
    // like the rest of the release: no interval below two complete worlds
    const interval = worlds < 2 ? null : (estimate?.interval ?? null);
    return {
      experiment: scores.scorer.experimentId,
      systemId: cell.systemId,
      evidenceClass:
        manifest.systems.find((system) => system.id === cell.systemId)?.evidenceClass ?? '',
      column: cell.column,
      label: cell.label,
      estimate: worlds === 0 ? null : (estimate?.estimate ?? null),
      lower: interval?.lower ?? null,
      upper: interval?.upper ?? null,
      level: manifest.analysis.level,
      intervalOmittedReason: omittedReason(worlds, estimate),
      worlds,
      plannedWorlds: planned,
    };
  });
}
