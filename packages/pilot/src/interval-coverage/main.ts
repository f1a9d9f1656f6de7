/**
 * `npm run coverage` (docs/coverage.md): runs the scripted divergence systems with known dynamics
 * and the pilot's memory experiment with the scripted systems of known Q_M over K world-seed sets and writes the empirical coverage of every cell with a derived true value,
 * per interval method, to `<out>/interval-coverage.json` and `<out>/interval-coverage.md`.
 * Scripted systems only: the figures measure the intervals, never a model.
 *
 * Flags: `--sets K` (40), `--worlds N` (8, the protocol default), `--resamples R` (2000, the
 * release's), `--method expanded|percentile|studentized|both|all` (all), `--cache DIR` (world values and pilot cells per seed set, reused), `--pilot-sets K` (pilot cells for the first K sets; default all), `--seed S` (the protocol's root seed:
 * seed set k uses root seed S + k), `--out DIR` (coverage).
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
import { pilotSeedSet } from './pilot-coverage';

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
    observations.push(
      ...(await divergenceSeedSet({
        rootSeed: options.seed + set,
        worlds: options.worlds,
        resamples: options.resamples,
        methods,
        cache: options.cache,
      })),
      // The pilot's Q_M and EIMC of the scripted systems with known values. Neither is a mean
      // over worlds, so the studentized interval does not apply to them.
      ...(set < (options.pilotSets ?? options.sets) ? await pilotCells(options, set, methods) : []),
    );
    // The tables are rewritten after every seed set: a run stopped early leaves the sets done.
    write(options, methods, observations, done);
    stderr.write(
      `coverage: seed set ${set + 1}/${options.sets} done (${Math.round((Date.now() - started) / 1000)} s)\n`,
    );
  }
  stdout.write(`coverage: wrote ${join(options.out, 'interval-coverage.{json,md}')}\n`);
}

/** Whether seed set `set`'s divergence world values are in the cache. */
function cachedSeedSet(options: CoverageArgs, set: number): boolean {
  return (
    options.cache !== null &&
    existsSync(join(options.cache, `world-values-${options.seed + set}-${options.worlds}.json`))
  );
}

/** One seed set's pilot cells, read from `--cache` when kept there, else run (and kept). */
async function pilotCells(
  options: CoverageArgs,
  set: number,
  methods: readonly CoverageMethod[],
): Promise<CoverageObservation[]> {
  const rootSeed = options.seed + set;
  const wanted = methods.filter((method) => method !== 'studentized');
  const file =
    options.cache === null
      ? null
      : join(options.cache, `pilot-${rootSeed}-${options.worlds}-${options.resamples}.json`);
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
