import { InvalidArgumentError } from '@chi/spec';
import { DIVERGENCE_SYSTEM_NAMES } from '../divergence/scripted-divergence';
import {
  CELL_COVERAGE_FLOOR,
  type CellCoverage,
  coverageShortfall,
  type GroupCoverage,
  MIN_JUDGED_INTERVALS,
  POOLED_COVERAGE_FLOOR,
} from './coverage-table';
import type { CoverageMethod } from './divergence-coverage';
import { FADING_RECALL_SYSTEM, PILOT_QM_TRUTH } from './pilot-coverage';

/** The systems `--only` takes: the divergence systems and the pilot systems with known cells. */
const COVERAGE_SYSTEMS: readonly string[] = [
  ...DIVERGENCE_SYSTEM_NAMES,
  FADING_RECALL_SYSTEM,
  ...Object.keys(PILOT_QM_TRUTH),
];

/** The flags of `npm run coverage` (docs/coverage.md). */
export interface CoverageArgs {
  /** Seed sets K (`--sets`, default 40). */
  readonly sets: number;
  /** Worlds per seed set (`--worlds`, default 8, the protocol's). */
  readonly worlds: number;
  /** Bootstrap resamples per interval (`--resamples`, default 2000, the release's). */
  readonly resamples: number;
  /**
   * `--method`: which interval methods to read, all from the same replicates' draws: one of them,
   * `both` (percentile and expanded) or `all` (the default: percentile, expanded, studentized).
   * `simultaneous` reads the release's family-wise max-|t| band of each divergence cell (its
   * family: the series grid or the dynamics table; docs/protocol.md, "The per-cell stateless
   * criterion"); the pilot's cells have no family-wise band and are not read with it.
   */
  readonly method: CoverageMethodFlag;
  /** First root seed (`--seed`); seed set k uses `seed + k`. */
  readonly seed: number;
  /** Output folder (`--out`, default `coverage`). */
  readonly out: string;
  /**
   * `--cache DIR`: per seed set, the run's world values are read from (or, the first time,
   * written to) `DIR/world-values-<root seed>-<worlds>.json`, so the intervals can be re-read
   * without rerunning the protocol. Null (the default): no cache.
   */
  readonly cache: string | null;
  /**
   * `--pilot-sets K`: run the pilot's memory experiment (Q_M and EIMC cells) for the first K seed
   * sets only (default: every set). The pilot run of a seed set costs more than its divergence
   * run; with `--cache` its observations are kept too (`DIR/pilot-<root seed>-<worlds>-<resamples>.json`).
   */
  readonly pilotSets: number | null;
  /**
   * `--cache-only DIR`: `--cache DIR`, but nothing is run: a seed set whose world values are not
   * in DIR is skipped (and counted), and pilot cells are read from DIR only. Re-reads the
   * intervals of runs done earlier (or on other machines) without a request.
   */
  readonly cacheOnly: boolean;
  /**
   * `--only SYSTEM`: read one system's cells only. A pilot system (`fading-recall`, or one of the
   * scripted systems of known Q_M) runs the pilot's memory experiment with that system alone and
   * no divergence protocol; a divergence system (stateless, notebook-follower, hidden-state) runs
   * the protocol and no pilot. Null (the default): every system.
   */
  readonly only: string | null;
}

/** The values of `--method`. */
export type CoverageMethodFlag =
  | 'expanded'
  | 'percentile'
  | 'studentized'
  | 'simultaneous'
  | 'both'
  | 'all';

const METHOD_FLAGS: readonly CoverageMethodFlag[] = [
  'expanded',
  'percentile',
  'studentized',
  'simultaneous',
  'both',
  'all',
];

/** The interval methods a `--method` value reads, in table order (the old one first). */
export function coverageMethods(flag: CoverageMethodFlag): CoverageMethod[] {
  if (flag === 'all') return ['percentile', 'expanded_percentile', 'studentized'];
  if (flag === 'both') return ['percentile', 'expanded_percentile'];
  return [flag === 'expanded' ? 'expanded_percentile' : flag];
}

const INTEGER_FLAGS = {
  '--sets': 'sets',
  '--worlds': 'worlds',
  '--resamples': 'resamples',
  '--pilot-sets': 'pilotSets',
};

/**
 * Parses the coverage command's flags.
 *
 * @throws InvalidArgumentError naming the flag (exit 2, usage) on an unknown flag, a missing value,
 *   a count that is not a positive integer, a seed that is not a non-negative integer, an
 *   unknown method, or an `--only` system without known cells.
 */
export function parseCoverageArgs(args: readonly string[], defaultSeed: number): CoverageArgs {
  const parsed: Record<string, number | string | boolean | null> = {
    sets: 40,
    worlds: 8,
    resamples: 2000,
    method: 'all',
    seed: defaultSeed,
    out: 'coverage',
    cache: null,
    pilotSets: null,
    cacheOnly: false,
    only: null,
  };
  for (let index = 0; index < args.length; index += 2) {
    const flag = args[index] as string;
    const value = args[index + 1];
    if (value === undefined) throw new InvalidArgumentError(flag, 'expected a value');
    const integer = Number(value);
    if (flag in INTEGER_FLAGS) {
      if (!Number.isInteger(integer) || integer < 1)
        throw new InvalidArgumentError(flag, `expected a positive integer, found "${value}"`);
      parsed[INTEGER_FLAGS[flag as keyof typeof INTEGER_FLAGS]] = integer;
    } else if (flag === '--seed') {
      if (!Number.isInteger(integer) || integer < 0)
        throw new InvalidArgumentError(flag, `expected a non-negative integer, found "${value}"`);
      parsed.seed = integer;
    } else if (flag === '--method') {
      if (!METHOD_FLAGS.includes(value as CoverageMethodFlag))
        throw new InvalidArgumentError(
          flag,
          `expected one of ${METHOD_FLAGS.join(', ')}, found "${value}"`,
        );
      parsed.method = value;
    } else if (flag === '--out') parsed.out = value;
    else if (flag === '--cache') parsed.cache = value;
    else if (flag === '--only') {
      if (!COVERAGE_SYSTEMS.includes(value))
        throw new InvalidArgumentError(
          flag,
          `expected one of ${COVERAGE_SYSTEMS.join(', ')}, found "${value}"`,
        );
      parsed.only = value;
    } else if (flag === '--cache-only') {
      parsed.cache = value;
      parsed.cacheOnly = true;
    } else throw new InvalidArgumentError(flag, 'unknown flag');
  }
  return parsed as unknown as CoverageArgs;
}

const figure = (value: number | null, digits = 3) => (value === null ? '-' : value.toFixed(digits));

/**
 * The Markdown of a coverage run: the settings, a table per group and method, then every cell
 * with both methods side by side (scripted systems: the figures measure the intervals).
 */
export function renderCoverageMarkdown(
  settings: CoverageArgs & {
    readonly methods: readonly string[];
    /** The root seeds read (with `--cache-only`, the cached ones); default seed..seed+sets-1. */
    readonly rootSeeds?: readonly number[];
  },
  groups: readonly GroupCoverage[],
  cells: readonly CellCoverage[],
): string {
  const lines = [
    '# Interval coverage (scripted systems with known dynamics)',
    '',
    `Seed sets: ${settings.sets}; worlds per set: ${settings.worlds}; resamples: ${settings.resamples}; root seeds ${settings.rootSeeds === undefined ? `${settings.seed}..${settings.seed + settings.sets - 1}` : settings.rootSeeds.join(', ')}; methods: ${settings.methods.join(', ')}. Nominal level 0.95.`,
    '',
    `Acceptance rule (docs/protocol.md): pooled coverage >= ${POOLED_COVERAGE_FLOOR} per group and no cell with ${MIN_JUDGED_INTERVALS}+ intervals at or below ${CELL_COVERAGE_FLOOR}; a seed set without an interval (the release says why) is counted under "no interval", never as covered.`,
    '',
    '| group | method | cells | deterministic cells | intervals | no interval | pooled coverage | min cell coverage | min judged cell | cells < 0.92 | mean (estimate - truth) | rule |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...groups.map(
      (g) =>
        `| ${g.group} | ${g.method} | ${g.cells} | ${g.deterministicCells} | ${g.intervals} | ${g.noInterval} | ${figure(g.coverage)} | ${figure(g.minCoverage)} | ${figure(g.minJudgedCoverage)} | ${g.cellsBelow} | ${figure(g.meanError, 4)} | ${coverageShortfall(g) ?? 'met'} |`,
    ),
    '',
    `| cell | truth | ${settings.methods.map((m) => `${m} coverage`).join(' | ')} | degenerate at truth | no interval | mean (estimate - truth) |`,
    `| --- | --- | ${settings.methods.map(() => '---').join(' | ')} | --- | --- | --- |`,
  ];
  const byCell = new Map<string, CellCoverage[]>();
  for (const cell of cells) byCell.set(cell.cell, [...(byCell.get(cell.cell) ?? []), cell]);
  for (const [name, list] of byCell) {
    const first = list[0] as CellCoverage;
    const coverage = settings.methods.map((method) =>
      figure(list.find((cell) => cell.method === method)?.coverage ?? null),
    );
    lines.push(
      `| ${name} | ${figure(first.truth, 4)} | ${coverage.join(' | ')} | ${first.degenerateAtTruth}/${first.sets} | ${first.noInterval} | ${figure(first.meanError, 4)} |`,
    );
  }
  return `${lines.join('\n')}\n`;
}
