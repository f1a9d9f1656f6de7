/**
 * `npm run coverage` (docs/coverage.md): runs the scripted divergence systems with known dynamics
 * and the pilot's memory experiment with the scripted systems of known Q_M over K world-seed sets and writes the empirical coverage of every cell with a derived true value,
 * per interval method, to `<out>/interval-coverage.json` and `<out>/interval-coverage.md`.
 * Scripted systems only: the figures measure the intervals, never a model.
 *
 * Flags: `--sets K` (40), `--worlds N` (8, the protocol default), `--resamples R` (2000, the
 * release's), `--method expanded|percentile|studentized|simultaneous|both|all` (all), `--cache DIR` (world values and pilot cells per seed set, reused), `--pilot-sets K` (pilot cells for the first K sets; default all), `--seed S` (the protocol's root seed:
 * seed set k uses root seed S + k), `--only SYSTEM` (one system's cells: a pilot system without the
 * divergence protocol, a divergence system without the pilot), `--out DIR` (coverage).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { argv, exit, stderr, stdout } from 'node:process';
import type { IntervalMethod } from '@chi/stats';
import { DIVERGENCE_ROOT_SEED } from '../divergence/run';
import {
  type CoverageArgs,
  coverageMethods,
  parseCoverageArgs,
  renderCoverageMarkdown,
} from './coverage-report';
import { type CoverageObservation, coverageByCell, coverageByGroup } from './coverage-table';
import { type CoverageMethod, divergenceSeedSet } from './divergence-coverage';
import { isPilotCoverageSystem, pilotSeedSet } from './pilot-coverage';

async function main(): Promise<void> {
  const options = parseCoverageArgs(argv.slice(2), DIVERGENCE_ROOT_SEED);
  const methods = coverageMethods(options.method);
  const observations: CoverageObservation[] = [];
  const started = Date.now();
  const done: number[] = [];
  for (let set = 0; set < options.sets; set++) {
    if (options.cacheOnly && !cachedSeedSet(options, set)) {
      stderr.write(
        `coverage: seed set ${set + 1} (root seed ${options.seed + set}) not cached: skipped\n`,
      );
      continue;
    }
    done.push(options.seed + set);
    observations.push(...(await seedSetCells(options, set, methods)));
    // The tables are rewritten after every seed set: a run stopped early leaves the sets done.
    write(options, methods, observations, done);
    stderr.write(
      `coverage: seed set ${set + 1}/${options.sets} done (${Math.round((Date.now() - started) / 1000)} s)\n`,
    );
  }
  stdout.write(`coverage: wrote ${join(options.out, 'interval-coverage.{json,md}')}\n`);
}

/**
 * One seed set's cells: the divergence protocol's and the pilot's, or (`--only`) one system's:
 * a pilot system's without running the divergence protocol, a divergence system's without the
 * pilot.
 */
async function seedSetCells(
  options: CoverageArgs,
  set: number,
  methods: readonly CoverageMethod[],
): Promise<CoverageObservation[]> {
  const pilotOnly = options.only !== null && isPilotCoverageSystem(options.only);
  const divergence = pilotOnly
    ? []
    : (
        await divergenceSeedSet({
          rootSeed: options.seed + set,
          worlds: options.worlds,
          resamples: options.resamples,
          methods,
          cache: options.cache,
          only: options.only,
        })
      ).filter((o) => options.only === null || o.cell.startsWith(`${options.only} `));
  // The pilot's Q_M and EIMC of the scripted systems with known values. Neither is a mean
  // over worlds, so the studentized interval does not apply to them; neither has a family-wise band.
  const pilot =
    (options.only === null || pilotOnly) && set < (options.pilotSets ?? options.sets)
      ? await pilotCells(options, set, methods)
      : [];
  return [...divergence, ...pilot];
}

/** Whether seed set `set`'s cells (`--only` a pilot system: its pilot cells) are in the cache. */
function cachedSeedSet(options: CoverageArgs, set: number): boolean {
  if (options.cache === null) return false;
  if (options.only !== null && isPilotCoverageSystem(options.only))
    return existsSync(pilotCacheFile(options, options.cache, set));
  const only = options.only === null ? '' : `${options.only}-`;
  return existsSync(
    join(options.cache, `world-values-${only}${options.seed + set}-${options.worlds}.json`),
  );
}

/** The cache file of one seed set's pilot cells (`--only` a pilot system: named after it). */
function pilotCacheFile(options: CoverageArgs, cache: string, set: number): string {
  const only = options.only === null ? '' : `${options.only}-`;
  return join(
    cache,
    `pilot-${only}${options.seed + set}-${options.worlds}-${options.resamples}.json`,
  );
}

/** One seed set's pilot cells, read from `--cache` when kept there, else run (and kept). */
async function pilotCells(
  options: CoverageArgs,
  set: number,
  methods: readonly CoverageMethod[],
): Promise<CoverageObservation[]> {
  const rootSeed = options.seed + set;
  const wanted = methods.filter((method) => method !== 'studentized' && method !== 'simultaneous');
  if (wanted.length === 0) return [];
  const file = options.cache === null ? null : pilotCacheFile(options, options.cache, set);
  if (file !== null && existsSync(file)) {
    const kept = JSON.parse(readFileSync(file, 'utf8')) as CoverageObservation[];
    if (wanted.every((method) => kept.some((o) => o.method === method)))
      return kept.filter((o) => (wanted as string[]).includes(o.method));
  }
  if (options.cacheOnly) return [];
  const observations = await pilotSeedSet({
    rootSeed,
    worlds: options.worlds,
    resamples: options.resamples,
    methods: wanted as IntervalMethod[],
    ...(options.only === null ? {} : { only: options.only }),
  });
  if (file !== null && options.cache !== null) {
    mkdirSync(options.cache, { recursive: true });
    writeFileSync(file, JSON.stringify(observations));
  }
  return observations;
}

function write(
  options: CoverageArgs,
  methods: readonly CoverageMethod[],
  observations: readonly CoverageObservation[],
  rootSeeds: readonly number[],
): void {
  const cells = coverageByCell(observations);
  // Groups are per system ("divergence series (hidden-state)"); pooled strips the system.
  const groups = coverageByGroup(cells);
  const pooled = coverageByGroup(
    cells.map((cell) => ({ ...cell, group: cell.group.replace(/ \(.*\)$/, '') })),
  );
  const settings = { ...options, sets: rootSeeds.length, rootSeeds, methods, scripted: true };
  mkdirSync(options.out, { recursive: true });
  writeFileSync(
    join(options.out, 'interval-coverage.json'),
    `${JSON.stringify({ settings, pooled, groups, cells }, null, 2)}\n`,
  );
  writeFileSync(
    join(options.out, 'interval-coverage.md'),
    renderCoverageMarkdown(settings, [...pooled, ...groups], cells),
  );
}

main().catch((error: unknown) => {
  stderr.write(`coverage: ${error instanceof Error ? error.message : String(error)}\n`);
  exit(2);
});
