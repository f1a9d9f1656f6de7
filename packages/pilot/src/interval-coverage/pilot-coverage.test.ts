import { describe, expect, it } from 'vitest';
import { coverageByCell } from './coverage-table';
import { FADING_RECALL_SYSTEM, PILOT_QM_TRUTH, pilotSeedSet } from './pilot-coverage';

describe('pilot Q_M and EIMC cells with known values in the coverage harness', () => {
  it('every deterministic system lands on its Q_M; fading-recall gets Q_M and EIMC intervals', async () => {
    const observations = await pilotSeedSet({
      rootSeed: 20260901,
      worlds: 3,
      resamples: 20,
      methods: ['expanded_percentile'],
      loads: [32, 64],
    });
    const deterministic = observations.filter((o) => !o.cell.startsWith(FADING_RECALL_SYSTEM));
    expect(deterministic.map((o) => o.cell).sort()).toEqual(
      Object.keys(PILOT_QM_TRUTH)
        .flatMap((system) => [`${system} Q_M@32`, `${system} Q_M@64`])
        .sort(),
    );
    for (const o of deterministic)
      expect([o.cell, o.estimate, o.lower, o.upper]).toEqual([o.cell, o.truth, o.truth, o.truth]);
    const cells = coverageByCell(deterministic);
    expect(
      cells.every((cell) => cell.degenerateAtTruth === cell.sets && cell.coverage === null),
    ).toBe(true);
    // On the grid 32, 64 the derived Q_M is 0.934, 0.872: EIMC 32 at tau 0.9; at 0.8 and 0.7 it
    // is the largest load, censored (a lower bound), so no cell.
    const fading = observations.filter((o) => o.cell.startsWith(FADING_RECALL_SYSTEM));
    expect(fading.map((o) => [o.cell, o.group, o.truth.toFixed(3)])).toEqual([
      ['fading-recall Q_M@32', 'pilot Q_M (fading-recall)', '0.934'],
      ['fading-recall Q_M@64', 'pilot Q_M (fading-recall)', '0.872'],
      ['fading-recall EIMC@0.9', 'pilot EIMC', '32.000'],
    ]);
    for (const o of fading.filter((f) => f.cell.includes('Q_M'))) {
      expect(o.lower).toBeLessThan(o.upper as number);
      expect(Math.abs((o.estimate as number) - o.truth)).toBeLessThan(0.15);
    }
  });

  it('--only runs that system alone, with the same cells as in the full roster', async () => {
    const settings = {
      rootSeed: 20260901,
      worlds: 3,
      resamples: 20,
      methods: ['expanded_percentile'] as const,
      loads: [32, 64],
    };
    const full = await pilotSeedSet(settings);
    const alone = await pilotSeedSet({ ...settings, only: FADING_RECALL_SYSTEM });
    expect(alone.length).toBe(3);
    expect(alone).toEqual(full.filter((o) => o.cell.startsWith(`${FADING_RECALL_SYSTEM} `)));
  });
});
