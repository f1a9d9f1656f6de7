import { describe, expect, it } from 'vitest';
import { analyzeDivergence, type DivergenceAnalysis } from './analyze';
import { statelessEntries, statelessManifest } from './stateless-trajectories';

// The stateless system's null over many world-seed sets: every excess the release reports
// (every excess series of every arm at every checkpoint, and every history-dependence dynamic)
// has expected value 0 for a system whose every decision is a fair coin, drawn independently per
// instance and probe (docs/protocol.md derives it). The trajectories are drawn here directly with
// that law, so the test runs the analysis (the definitions under test) on 100 sets of the default 8
// worlds in seconds instead of running the protocol 100 times.
//
// Tolerance: a per-world excess of coins has SD about 0.31 (D of 4 coordinates has variance
// 1/16; excess = D - (D' + D'') / 2 adds half of two more), so the mean over 100 x 8 = 800 worlds
// has SD about 0.011 and 0.05 is 4.5 SD: over the ~50 quantities checked, a false failure has
// probability below 1e-4, while the old definitions (plasticity, hysteresis, drift raw: 0.75, 0.5,
// 0.5) fail by an order of magnitude.
const SETS = 100;
const WORLDS = 8;

const manifest = statelessManifest(WORLDS);

const NULL_DYNAMICS: readonly string[] = [
  'experienceDivergence',
  'continuity',
  'drift',
  'plasticity',
  'hysteresis',
  'memoryAccumulation',
];

/** The release's quantities whose stateless value is 0, by name. */
function nullQuantities(analysis: DivergenceAnalysis): Map<string, number | null> {
  const system = analysis.systems[0];
  const values = new Map<string, number | null>();
  for (const point of system?.trajectory ?? [])
    for (const [name, value] of Object.entries(point.series))
      if (name !== 'differentHistory' && name !== 'sameHistory')
        values.set(`${name}@${point.checkpoint}`, value.estimate);
  for (const dynamic of system?.dynamics ?? [])
    if (NULL_DYNAMICS.includes(dynamic.name)) values.set(dynamic.name, dynamic.value.estimate);
  return values;
}

describe('stateless system over many world-seed sets', () => {
  it(`every excess has mean within 0.05 of 0 over ${SETS} sets of ${WORLDS} worlds`, () => {
    const sums = new Map<string, number>();
    for (let set = 0; set < SETS; set++) {
      const worldSeeds = Array.from({ length: WORLDS }, (_, index) => 1000 * set + index + 1);
      const analysis = analyzeDivergence(
        { ...manifest, worldSeeds },
        '0'.repeat(64),
        statelessEntries(manifest, worldSeeds, 7919 * set + 17),
      );
      for (const [name, value] of nullQuantities(analysis)) {
        expect(value, `${name} in set ${set}`).not.toBeNull();
        sums.set(name, (sums.get(name) ?? 0) + (value as number));
      }
    }
    expect(sums.size).toBe(5 * 7 + 6);
    const far = [...sums]
      .map(([name, sum]) => [name, sum / SETS] as const)
      .filter(([, mean]) => Math.abs(mean) > 0.05);
    expect(far).toEqual([]);
  });
});
