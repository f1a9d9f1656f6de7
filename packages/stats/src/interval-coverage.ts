import { InvalidArgumentError } from '@chi/spec';
import { describeValue } from './validation.js';

/** One interval whose true value is known, from one replication (seed set) of a study. */
export interface KnownTruthInterval {
  /** The cell family the interval belongs to, e.g. `'excess@1 follower'`; coverage is per family. */
  readonly family: string;
  /** The true value the interval should contain. */
  readonly truth: number;
  /** The interval's lower endpoint, or null when no interval was given (never covers). */
  readonly lower: number | null;
  /** The interval's upper endpoint, or null when no interval was given (never covers). */
  readonly upper: number | null;
}

/** Empirical coverage of one family of intervals. */
export interface FamilyCoverage {
  /** The family's name (`'all'` for the overall figure). */
  readonly family: string;
  /** Intervals in the family (one per replication). */
  readonly intervals: number;
  /** Intervals that contain the true value (endpoints included). */
  readonly covered: number;
  /** `covered / intervals`. */
  readonly coverage: number;
}

/**
 * The empirical coverage of intervals with known true values, per family (in first-seen order)
 * and over all of them. An interval covers when `lower <= truth <= upper`, with a tolerance of
 * 1e-9 for values rounded in a release; a missing interval never covers.
 *
 * @example
 * ```ts
 * intervalCoverage([
 *   { family: 'mean', truth: 0.5, lower: 0.4, upper: 0.6 },
 *   { family: 'mean', truth: 0.5, lower: 0.55, upper: 0.7 },
 * ]).overall.coverage; // 0.5
 * ```
 */
export function intervalCoverage(intervals: readonly KnownTruthInterval[]): {
  readonly families: readonly FamilyCoverage[];
  readonly overall: FamilyCoverage;
} {
  const counts = new Map<string, { intervals: number; covered: number }>();
  intervals.forEach((interval, index) => {
    if (!Number.isFinite(interval.truth)) {
      throw new InvalidArgumentError(
        `intervals[${index}].truth`,
        `expected a finite number, found ${describeValue(interval.truth)}`,
      );
    }
    const count = counts.get(interval.family) ?? { intervals: 0, covered: 0 };
    count.intervals++;
    if (covers(interval)) count.covered++;
    counts.set(interval.family, count);
  });
  const families = [...counts].map(([family, count]) => summarize(family, count));
  const total = families.reduce(
    (sum, family) => ({
      intervals: sum.intervals + family.intervals,
      covered: sum.covered + family.covered,
    }),
    { intervals: 0, covered: 0 },
  );
  return { families, overall: summarize('all', total) };
}

const TOLERANCE = 1e-9;

function covers({ truth, lower, upper }: KnownTruthInterval): boolean {
  return (
    lower !== null && upper !== null && lower - TOLERANCE <= truth && truth <= upper + TOLERANCE
  );
}

function summarize(family: string, count: { intervals: number; covered: number }): FamilyCoverage {
  return {
    family,
    intervals: count.intervals,
    covered: count.covered,
    coverage: count.intervals === 0 ? Number.NaN : count.covered / count.intervals,
  };
}
