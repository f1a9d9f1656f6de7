import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AS_OF_BRANCHES, asOfBranchCounts } from './as-of-branches';

describe('asOfBranchCounts', () => {
  it('splits the pilot stratum 2/2/2/2 and gives remainders in branch order', () => {
    expect(asOfBranchCounts(8)).toEqual({
      none_eligible: 2,
      one_eligible: 2,
      authority_wins: 2,
      later_wins: 2,
    });
    expect(asOfBranchCounts(1)).toEqual({
      none_eligible: 1,
      one_eligible: 0,
      authority_wins: 0,
      later_wins: 0,
    });
    expect(asOfBranchCounts(7)).toEqual({
      none_eligible: 2,
      one_eligible: 2,
      authority_wins: 2,
      later_wins: 1,
    });
  });

  it('sums to P, differs by at most one between branches, and never omits none_eligible', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10_000 }), (probes) => {
        const counts = AS_OF_BRANCHES.map((branch) => asOfBranchCounts(probes)[branch]);
        expect(counts.reduce((sum, count) => sum + count, 0)).toBe(probes);
        expect(Math.max(...counts) - Math.min(...counts)).toBeLessThanOrEqual(1);
        expect(counts[0]).toBeGreaterThan(0);
      }),
    );
  });
});
