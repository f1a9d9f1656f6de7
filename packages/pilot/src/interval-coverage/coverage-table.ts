/**
 * Counting of `npm run coverage` (docs/coverage.md): per cell with a known true value, over the
 * seed sets, how many intervals contain the truth, how many are degenerate exactly at the truth
 * (a deterministic cell: reported apart so it does not inflate coverage), how many seed sets gave
 * no interval (the release said so: counted apart, never as covered), and the mean of estimate
 * minus truth; and the acceptance rule of docs/protocol.md ("Interval coverage: the acceptance
 * rule"). Pure: no files, no clock.
 */

/** One interval of one cell from one seed set and one interval method. */
export interface CoverageObservation {
  /** The cell, e.g. `'notebook-follower excess@3'`; coverage is per cell. */
  readonly cell: string;
  /** The group of cells the cell belongs to, e.g. `'divergence series'`. */
  readonly group: string;
  /** The interval method, e.g. `'expanded_percentile'`. */
  readonly method: string;
  readonly truth: number;
  /** Null when the estimate is undefined in this seed set. */
  readonly estimate: number | null;
  /** Null (both) when no interval was given: counted as "no interval", never as covering. */
  readonly lower: number | null;
  readonly upper: number | null;
}

/** The coverage of one cell under one method. */
export interface CellCoverage {
  readonly cell: string;
  readonly group: string;
  readonly method: string;
  readonly truth: number;
  /** Seed sets observed. */
  readonly sets: number;
  /** Intervals [x, x] with x equal to the truth: counted, but not in `coverage`. */
  readonly degenerateAtTruth: number;
  /**
   * Seed sets where the release gives no interval (undefined estimate, fewer than two defined
   * worlds, or not estimable: too few defined worlds, docs/protocol.md). Counted apart: the
   * release states that it has no interval, so there is nothing to cover or miss.
   */
  readonly noInterval: number;
  /** Non-degenerate intervals that contain the truth. */
  readonly covered: number;
  /** Intervals given that are not degenerate at the truth: `sets - degenerateAtTruth - noInterval`. */
  readonly intervals: number;
  /** `covered / intervals`; null when there is none (every interval degenerate or absent). */
  readonly coverage: number | null;
  /** Mean of estimate minus truth over the seed sets with an estimate; null when none had one. */
  readonly meanError: number | null;
}

const TOLERANCE = 1e-9;

/**
 * The acceptance rule (docs/protocol.md, "Interval coverage: the acceptance rule"): pooled coverage
 * of nominal 95 % intervals at least {@link POOLED_COVERAGE_FLOOR} over every known-truth cell of a
 * group, and no cell judged singly at or below {@link CELL_COVERAGE_FLOOR}.
 */
export const POOLED_COVERAGE_FLOOR = 0.92;
/** A cell judged singly (with at least {@link MIN_JUDGED_INTERVALS} intervals) fails at or below this. */
export const CELL_COVERAGE_FLOOR = 0.8;
/**
 * Intervals a cell needs to be judged singly: with fewer, two misses already reach 0.8 by chance
 * (a cell of 10 intervals at true coverage 0.95 does with probability 0.09); such a cell still
 * enters its group's pooled figure.
 */
export const MIN_JUDGED_INTERVALS = 20;

/** Why a group fails the acceptance rule, or null when it meets it. */
export function coverageShortfall(group: GroupCoverage): string | null {
  if (group.coverage !== null && group.coverage < POOLED_COVERAGE_FLOOR)
    return `pooled coverage ${group.coverage.toFixed(3)} < ${POOLED_COVERAGE_FLOOR}`;
  if (group.minJudgedCoverage !== null && group.minJudgedCoverage <= CELL_COVERAGE_FLOOR)
    return `a cell with ${MIN_JUDGED_INTERVALS}+ intervals at ${group.minJudgedCoverage.toFixed(3)} <= ${CELL_COVERAGE_FLOOR}`;
  return null;
}

const near = (a: number, b: number) => Math.abs(a - b) <= TOLERANCE;

/**
 * Coverage per (cell, method), in first-seen order. An interval covers when
 * `lower - 1e-9 <= truth <= upper + 1e-9`; one with `lower == upper == truth` (within 1e-9) is
 * degenerate at the truth and counted apart, as is a seed set with no interval (never covered).
 */
export function coverageByCell(observations: readonly CoverageObservation[]): CellCoverage[] {
  const cells = new Map<string, CoverageObservation[]>();
  for (const observation of observations) {
    const key = `${observation.method}\u0000${observation.cell}`;
    const list = cells.get(key) ?? [];
    list.push(observation);
    cells.set(key, list);
  }
  return [...cells.values()].map(summarizeCell);
}

function summarizeCell(list: readonly CoverageObservation[]): CellCoverage {
  const first = list[0] as CoverageObservation;
  let degenerateAtTruth = 0;
  let noInterval = 0;
  let covered = 0;
  let errorSum = 0;
  let estimates = 0;
  for (const { truth, estimate, lower, upper } of list) {
    if (estimate !== null) {
      errorSum += estimate - truth;
      estimates++;
    }
    if (lower === null || upper === null) noInterval++;
    else if (near(lower, truth) && near(upper, truth)) degenerateAtTruth++;
    else if (lower - TOLERANCE <= truth && truth <= upper + TOLERANCE) covered++;
  }
  const informative = list.length - degenerateAtTruth - noInterval;
  return {
    cell: first.cell,
    group: first.group,
    method: first.method,
    truth: first.truth,
    sets: list.length,
    degenerateAtTruth,
    noInterval,
    covered,
    intervals: informative,
    coverage: informative === 0 ? null : covered / informative,
    meanError: estimates === 0 ? null : errorSum / estimates,
  };
}

/** One group's summary under one method: its cells pooled. */
export interface GroupCoverage {
  readonly group: string;
  readonly method: string;
  /** Cells with at least one interval given that is not degenerate at the truth. */
  readonly cells: number;
  /** Cells whose every interval was degenerate at the truth (deterministic cells). */
  readonly deterministicCells: number;
  /** Intervals pooled (given, not degenerate at the truth). */
  readonly intervals: number;
  /** Seed sets x cells where the release gave no interval. */
  readonly noInterval: number;
  /** Pooled coverage over the non-degenerate intervals of the group; null when there are none. */
  readonly coverage: number | null;
  /** The lowest cell coverage in the group. */
  readonly minCoverage: number | null;
  /**
   * The lowest coverage among the cells judged singly (at least {@link MIN_JUDGED_INTERVALS}
   * intervals); null when none is.
   */
  readonly minJudgedCoverage: number | null;
  /** Cells whose coverage is below the threshold (0.92 by default). */
  readonly cellsBelow: number;
  /** Mean over the group's cells of their mean estimate minus truth. */
  readonly meanError: number | null;
}

/** Pools {@link CellCoverage} rows per (group, method), in first-seen order. */
export function coverageByGroup(cells: readonly CellCoverage[], threshold = 0.92): GroupCoverage[] {
  const groups = new Map<string, CellCoverage[]>();
  for (const cell of cells) {
    const key = `${cell.method}\u0000${cell.group}`;
    groups.set(key, [...(groups.get(key) ?? []), cell]);
  }
  return [...groups.values()].map((list) => {
    const first = list[0] as CellCoverage;
    const informative = list.filter((cell) => cell.coverage !== null);
    const intervals = informative.reduce((sum, c) => sum + c.intervals, 0);
    const judged = informative
      .filter((cell) => cell.intervals >= MIN_JUDGED_INTERVALS)
      .map((cell) => cell.coverage as number);
    const covered = informative.reduce((sum, c) => sum + c.covered, 0);
    const errors = list.flatMap((cell) => (cell.meanError === null ? [] : [cell.meanError]));
    const coverages = informative.map((cell) => cell.coverage as number);
    return {
      group: first.group,
      method: first.method,
      cells: informative.length,
      deterministicCells: list.length - informative.length,
      intervals,
      noInterval: list.reduce((sum, cell) => sum + cell.noInterval, 0),
      coverage: intervals === 0 ? null : covered / intervals,
      minCoverage: coverages.length === 0 ? null : Math.min(...coverages),
      minJudgedCoverage: judged.length === 0 ? null : Math.min(...judged),
      cellsBelow: coverages.filter((coverage) => coverage < threshold).length,
      meanError:
        errors.length === 0 ? null : errors.reduce((sum, value) => sum + value, 0) / errors.length,
    };
  });
}
