/**
 * The branches of the as-of rule that the historical stratum t exercises (docs/protocol.md,
 * "Memory worlds", decision 11). The rule: keep a key's records with `eventTime <= cutoff`, then
 * apply precedence (highest authority, then later time); no eligible record means unknown.
 *
 * - `none_eligible`: the cutoff is before the key's first record; the only passing answer is an
 *   explicit abstention.
 * - `one_eligible`: the cutoff falls between an original record and its authoritative update;
 *   the original is the only eligible record (and differs from the current answer).
 * - `later_wins`: the cutoff is after an authoritative update; both records are eligible and the
 *   update wins (higher or equal authority, later), so a reader that returns the oldest record
 *   fails.
 * - `authority_wins`: the cutoff is after a lower-authority conflicting record; both records are
 *   eligible and the older authority-2 record beats the later authority-1 one, so a reader that
 *   returns the latest eligible record fails.
 */
export const AS_OF_BRANCHES = [
  'none_eligible',
  'one_eligible',
  'authority_wins',
  'later_wins',
] as const;

/** One branch of the as-of rule, see `AS_OF_BRANCHES`. */
export type AsOfBranch = (typeof AS_OF_BRANCHES)[number];

/**
 * How many of the `probesPerStratum` t probes take each branch: a quarter each, and the
 * remainder (P mod 4) to the branches in `AS_OF_BRANCHES` order, so the never-eligible
 * branch is present whenever P >= 1 and every branch whenever P >= 4 (2 each in the pilot).
 *
 * @example
 * ```ts
 * asOfBranchCounts(8); // { none_eligible: 2, one_eligible: 2, authority_wins: 2, later_wins: 2 }
 * asOfBranchCounts(3); // { none_eligible: 1, one_eligible: 1, authority_wins: 1, later_wins: 0 }
 * ```
 */
export function asOfBranchCounts(probesPerStratum: number): Record<AsOfBranch, number> {
  const counts = {} as Record<AsOfBranch, number>;
  AS_OF_BRANCHES.forEach((branch, order) => {
    counts[branch] = Math.floor((probesPerStratum + AS_OF_BRANCHES.length - 1 - order) / 4);
  });
  return counts;
}
