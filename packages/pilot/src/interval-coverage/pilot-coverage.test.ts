import { describe, expect, it } from 'vitest';
import { coverageByCell } from './coverage-table';
import { PILOT_QM_TRUTH, pilotSeedSet } from './pilot-coverage';

describe('pilot Q_M cells with known values in the coverage harness', () => {
  it('every known system lands on its Q_M at every load, its intervals degenerate at the truth', async () => {
    const observations = await pilotSeedSet({
      rootSeed: 20260901,
      worlds: 2,
      resamples: 20,
      methods: ['expanded_percentile'],
      loads: [32, 64],
    });
    expect(observations.map((o) => o.cell).sort()).toEqual(
      Object.keys(PILOT_QM_TRUTH)
        .flatMap((system) => [`${system} Q_M@32`, `${system} Q_M@64`])
        .sort(),
    );
    for (const o of observations)
      expect([o.cell, o.estimate, o.lower, o.upper]).toEqual([o.cell, o.truth, o.truth, o.truth]);
    const cells = coverageByCell(observations);
    expect(
      cells.every((cell) => cell.degenerateAtTruth === cell.sets && cell.coverage === null),
    ).toBe(true);
  });
});
