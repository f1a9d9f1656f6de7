/**
 * `npm run coverage` (docs/coverage.md): runs the scripted divergence systems with known dynamics
 * and the pilot's memory experiment with the scripted systems of known Q_M over K world-seed sets and writes the empirical coverage of every cell with a derived true value,
 * per interval method, to `<out>/interval-coverage.json` and `<out>/interval-coverage.md`.
 * Scripted systems only: the figures measure the intervals, never a model.
 *
 * Flags: `--sets K` (40), `--worlds N` (8, the protocol default), `--resamples R` (2000, the
 * release's), `--method expanded|percentile|studentized|both|all` (all), `--cache DIR` (world values per seed set, reused), `--seed S` (the protocol's root seed:
 * seed set k uses root seed S + k), `--out DIR` (coverage).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { argv, exit, stderr, stdout } from 'node:process';
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
  for (let set = 0; set < options.sets; set++) {
    observations.push(
      ...(await divergenceSeedSet({
        rootSeed: options.seed + set,
        worlds: options.worlds,
        resamples: options.resamples,
        methods,
        cache: options.cache,
      })),
      // The pilot's Q_M of the scripted systems with known values (deterministic cells). Q_M is
      // not a mean over worlds, so the studentized interval does not apply to it.
      ...(await pilotSeedSet({
        rootSeed: options.seed + set,
        worlds: options.worlds,
        resamples: options.resamples,
        methods: methods.filter((method) => method !== 'studentized'),
      })),
    );
    // The tables are rewritten after every seed set: a run stopped early leaves the sets done.
    write(options, methods, observations, set + 1);
    stderr.write(
      `coverage: seed set ${set + 1}/${options.sets} done (${Math.round((Date.now() - started) / 1000)} s)\n`,
    );
  }
  stdout.write(`coverage: wrote ${join(options.out, 'interval-coverage.{json,md}')}\n`);
}

function write(
  options: CoverageArgs,
  methods: readonly CoverageMethod[],
  observations: readonly CoverageObservation[],
  setsDone: number,
): void {
  const cells = coverageByCell(observations);
  // Groups are per system ("divergence series (hidden-state)"); pooled strips the system.
  const groups = coverageByGroup(cells);
  const pooled = coverageByGroup(
    cells.map((cell) => ({ ...cell, group: cell.group.replace(/ \(.*\)$/, '') })),
  );
  const settings = { ...options, sets: setsDone, methods, scripted: true };
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
