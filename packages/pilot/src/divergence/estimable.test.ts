import { describe, expect, it } from 'vitest';
import { analyzeDivergence, formatEstimate } from './analyze';
import { MIN_DEFINED_WORLDS, notEstimableReason } from './estimable';
import { statelessEntries, statelessManifest } from './stateless-trajectories';

describe('not estimable: too few defined worlds (docs/protocol.md)', () => {
  it('says how many worlds define it and about how many would give an interval', () => {
    expect(MIN_DEFINED_WORLDS).toBe(4);
    expect(notEstimableReason(2, 8)).toBe(
      'not estimable: defined in 2 of 8 worlds; an interval needs 4 defined worlds (about 16 worlds at this rate)',
    );
    expect(notEstimableReason(0, 8)).toBe(
      'not estimable: defined in 0 of 8 worlds; an interval needs 4 defined worlds',
    );
    // Defined in every planned world (a 2-world run) or in 4 or more: the rule does not apply.
    expect(notEstimableReason(2, 2)).toBeNull();
    expect(notEstimableReason(4, 8)).toBeNull();
  });

  it('the release keeps the estimate but gives no interval and no band, and the family leaves it out', () => {
    const one = statelessManifest(8);
    const manifest = { ...one, analysis: { ...one.analysis, resamples: 200 } };
    const worldSeeds = manifest.worldSeeds;
    const entries = statelessEntries(manifest, worldSeeds, 31);
    // A.fault excluded in 5 of the 8 worlds: recovery is defined in at most 3.
    const excluded = worldSeeds.slice(0, 5).map((worldSeed) => ({
      systemId: 'stateless',
      worldSeed,
      arm: 'A.fault',
      requestId: `r${worldSeed}`,
      reason: 'test',
    }));
    const read = (list: typeof excluded) => {
      const system = analyzeDivergence(manifest, 'a'.repeat(64), entries, list).systems[0];
      return {
        recovery: system?.dynamics.find((row) => row.name === 'recovery')?.value,
        family: system?.familyWise.dynamics.familySize,
      };
    };
    const few = read(excluded);
    expect(few.recovery?.worlds).toBeLessThan(4);
    expect(few.recovery?.estimate).not.toBeNull();
    expect(few.recovery).toMatchObject({
      lower: null,
      upper: null,
      simultaneousLower: null,
      simultaneousUpper: null,
    });
    expect(few.recovery?.reason).toMatch(
      /^no interval: not estimable: defined in [0-3] of 8 worlds/,
    );
    expect(formatEstimate(few.recovery as NonNullable<typeof few.recovery>)).toContain(
      'not estimable',
    );
    const all = read([]);
    expect(all.recovery?.worlds).toBeGreaterThanOrEqual(4);
    expect(all.recovery?.lower).not.toBeNull();
    expect(all.family).toBeGreaterThan(1);
    expect(few.family).toBe((all.family as number) - 1);
  });
});
