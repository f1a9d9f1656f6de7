import { InvalidArgumentError } from '@chi/spec';
import { describe, expect, it } from 'vitest';
import { coverageMethods, parseCoverageArgs, renderCoverageMarkdown } from './coverage-report';
import {
  type CoverageObservation,
  coverageByCell,
  coverageByGroup,
  coverageShortfall,
  type GroupCoverage,
} from './coverage-table';
import { divergenceObservations, divergenceTruths } from './divergence-coverage';

const observation = (
  cell: string,
  estimate: number | null,
  lower: number | null,
  upper: number | null,
  truth = 0.5,
): CoverageObservation => ({
  cell,
  group: 'g',
  method: 'expanded_percentile',
  truth,
  estimate,
  lower,
  upper,
});

describe('coverage counting (npm run coverage), hand-worked', () => {
  // Cell a over 5 seed sets, truth 0.5: [0.4, 0.6] covers, [0.51, 0.7] misses, [0.5, 0.5] is
  // degenerate at the truth (counted apart), a seed set without an interval is "no interval"
  // (counted apart, never covered), and [0.3, 0.5 + 5e-10] covers within the 1e-9 tolerance.
  // Coverage = 2 / (5 - 1 - 1) = 2/3; mean error
  // over the 4 estimates = (0 + 0.1 + 0 - 0.1) / 4... with estimates 0.5, 0.6, 0.5, 0.4 -> 0.
  const a = [
    observation('a', 0.5, 0.4, 0.6),
    observation('a', 0.6, 0.51, 0.7),
    observation('a', 0.5, 0.5, 0.5),
    observation('a', null, null, null),
    observation('a', 0.4, 0.3, 0.5 + 5e-10),
  ];
  // Cell b: every interval degenerate at its truth 0 (a deterministic cell): no coverage figure.
  const b = [observation('b', 0, 0, 0, 0), observation('b', 0, 0, 0, 0)];
  // Cell c: [0.2, 0.2] with truth 0.5 is degenerate but not at the truth: a miss.
  const c = [observation('c', 0.2, 0.2, 0.2), observation('c', 0.45, 0.4, 0.55)];

  it('counts covered, degenerate-at-truth and no-interval seed sets per cell', () => {
    const cells = coverageByCell([...a, ...b, ...c]);
    expect(
      cells.map(({ cell, sets, degenerateAtTruth, noInterval, covered, intervals }) => ({
        cell,
        sets,
        degenerateAtTruth,
        noInterval,
        covered,
        intervals,
      })),
    ).toEqual([
      { cell: 'a', sets: 5, degenerateAtTruth: 1, noInterval: 1, covered: 2, intervals: 3 },
      { cell: 'b', sets: 2, degenerateAtTruth: 2, noInterval: 0, covered: 0, intervals: 0 },
      { cell: 'c', sets: 2, degenerateAtTruth: 0, noInterval: 0, covered: 1, intervals: 2 },
    ]);
    expect(cells[0]?.coverage).toBe(2 / 3);
    expect(cells[0]?.meanError).toBeCloseTo(0, 12);
    expect(cells[1]?.coverage).toBeNull();
    expect(cells[1]?.meanError).toBe(0);
    expect(cells[2]?.coverage).toBe(0.5);
    expect(cells[2]?.meanError).toBeCloseTo((-0.3 - 0.05) / 2, 12);
  });

  it('pools a group over its non-degenerate intervals and counts deterministic cells apart', () => {
    const [group] = coverageByGroup(coverageByCell([...a, ...b, ...c]));
    // a: 2 of 3 intervals given (one seed set without), c: 1 of 2 -> 3 / 5; b is a
    // deterministic cell. No cell has 20 intervals, so none is judged singly.
    expect(group).toMatchObject({
      cells: 2,
      deterministicCells: 1,
      intervals: 5,
      noInterval: 1,
      coverage: 0.6,
      minCoverage: 0.5,
      minJudgedCoverage: null,
      cellsBelow: 2,
    });
    expect(coverageShortfall(group as GroupCoverage)).toBe('pooled coverage 0.600 < 0.92');
  });

  it('the acceptance rule: pooled >= 0.92, and no cell of 20+ intervals at or below 0.8', () => {
    const cell = (name: string, covered: number, of: number, missingSets = 0) => [
      ...Array.from({ length: covered }, () => observation(name, 0.5, 0.4, 0.6)),
      ...Array.from({ length: of - covered }, () => observation(name, 0.9, 0.8, 1)),
      ...Array.from({ length: missingSets }, () => observation(name, 0.5, null, null)),
    ];
    const rule = (...cells: CoverageObservation[][]) =>
      coverageShortfall(coverageByGroup(coverageByCell(cells.flat()))[0] as GroupCoverage);
    // 390 of 400 pooled (0.975); one judged cell at 32/40 = 0.8: fails on the cell.
    expect(
      rule(cell('x', 32, 40), ...Array.from({ length: 9 }, (_, i) => cell(`y${i}`, 40, 40))),
    ).toBe('a cell with 20+ intervals at 0.800 <= 0.8');
    // The same cell at 33/40 passes; a cell of 10 intervals at 0.7 is not judged singly.
    expect(
      rule(
        cell('x', 33, 40),
        cell('z', 7, 10, 30),
        ...Array.from({ length: 9 }, (_, i) => cell(`y${i}`, 40, 40)),
      ),
    ).toBeNull();
    // Seed sets without an interval never count as covered: 30 of them beside 10 misses fail.
    expect(rule(cell('w', 0, 10, 30))).toBe('pooled coverage 0.000 < 0.92');
  });

  it('keeps methods apart', () => {
    const percentile = a.map((o) => ({ ...o, method: 'percentile' }));
    const cells = coverageByCell([...a, ...percentile]);
    expect(cells.map((cell) => cell.method)).toEqual(['expanded_percentile', 'percentile']);
    const text = renderCoverageMarkdown(
      { ...parseCoverageArgs([], 1), methods: ['percentile', 'expanded_percentile'] },
      coverageByGroup(cells),
      cells,
    );
    expect(text).toContain('| a | 0.5000 | 0.667 | 0.667 | 1/5 | 1 | 0.0000 |');
  });
});

describe('divergence cells read from world values', () => {
  it('a cell equal in every world is degenerate at its truth; a spread one gets both methods', () => {
    // Two stateless worlds: excess@0 is 0 in both (truth 0), differentHistory@1 is 0.25 and 0.75.
    const values = [1, 2].flatMap((worldSeed) => [
      { systemId: 'stateless', statistic: 'excess@0', worldSeed, value: 0, reason: null },
      {
        systemId: 'stateless',
        statistic: 'differentHistory@1',
        worldSeed,
        value: worldSeed === 1 ? 0.25 : 0.75,
        reason: null,
      },
    ]);
    const observations = divergenceObservations(values, {
      checkpoints: [0, 1],
      seed: 7,
      resamples: 200,
      level: 0.95,
      methods: ['percentile', 'expanded_percentile'],
    });
    const find = (cell: string, method: string) =>
      observations.find((o) => o.cell === cell && o.method === method);
    expect(find('stateless excess@0', 'percentile')).toMatchObject({ lower: 0, upper: 0 });
    const percentile = find('stateless differentHistory@1', 'percentile');
    const expanded = find('stateless differentHistory@1', 'expanded_percentile');
    expect(percentile).toMatchObject({ truth: 0.5, estimate: 0.5 });
    expect(expanded?.lower).toBeLessThanOrEqual(percentile?.lower as number);
    expect(expanded?.upper).toBeGreaterThanOrEqual(percentile?.upper as number);
    // Statistics without a derived value never enter (every truth cell does, even if undefined).
    expect(find('stateless excess@1', 'percentile')).toMatchObject({ lower: null, upper: null });
  });

  it('a cell defined in 3 of 8 worlds gets no interval, as in the release; 4 of 8 gets one', () => {
    const values = (defined: number) =>
      Array.from({ length: 8 }, (_, world) => ({
        systemId: 'hidden-state',
        statistic: 'recovery',
        worldSeed: world + 1,
        value: world < defined ? world % 2 : null,
        reason: world < defined ? null : 'no deviation to recover from',
      }));
    const read = (defined: number) =>
      divergenceObservations(values(defined), {
        checkpoints: [0],
        seed: 7,
        resamples: 200,
        level: 0.95,
        methods: ['expanded_percentile', 'studentized'],
      }).filter((o) => o.cell === 'hidden-state recovery');
    for (const observation of read(3))
      expect(observation).toMatchObject({ estimate: 1 / 3, lower: null, upper: null });
    for (const observation of read(4)) expect(observation.lower).not.toBeNull();
  });

  it('takes every series at every checkpoint and every derived dynamic, per system', () => {
    const truths = divergenceTruths('notebook-follower', [0, 1, 2, 3, 4, 5, 6]);
    expect(truths.filter((t) => t.group === 'divergence series')).toHaveLength(49);
    expect(truths.filter((t) => t.group === 'divergence dynamics')).toHaveLength(16);
    expect(truths.find((t) => t.statistic === 'excess@0')?.truth).toBe(0);
  });
});

describe('coverage flags', () => {
  it('defaults to 40 sets of 8 worlds at 2000 resamples, all three methods, no cache', () => {
    expect(parseCoverageArgs([], 5)).toEqual({
      sets: 40,
      worlds: 8,
      resamples: 2000,
      method: 'all',
      seed: 5,
      out: 'coverage',
      cache: null,
      pilotSets: null,
      cacheOnly: false,
      only: null,
    });
    expect(parseCoverageArgs(['--only', 'fading-recall'], 5).only).toBe('fading-recall');
    expect(coverageMethods('simultaneous')).toEqual(['simultaneous']);
    expect(parseCoverageArgs(['--cache-only', 'c'], 5)).toMatchObject({
      cache: 'c',
      cacheOnly: true,
    });
    expect(parseCoverageArgs(['--pilot-sets', '10'], 5).pilotSets).toBe(10);
    expect(coverageMethods('all')).toEqual(['percentile', 'expanded_percentile', 'studentized']);
    expect(coverageMethods('both')).toEqual(['percentile', 'expanded_percentile']);
    expect(coverageMethods('expanded')).toEqual(['expanded_percentile']);
    expect(parseCoverageArgs(['--cache', 'c', '--method', 'studentized'], 5)).toMatchObject({
      cache: 'c',
      method: 'studentized',
    });
  });

  it.each([
    [['--sets', '0'], '--sets'],
    [['--pilot-sets', '0'], '--pilot-sets'],
    [['--worlds', 'x'], '--worlds'],
    [['--method', 'bca'], '--method'],
    [['--seed', '-1'], '--seed'],
    [['--resamples'], '--resamples'],
    [['--bogus', '1'], '--bogus'],
    [['--only', 'keeper'], '--only'],
  ])('rejects %j naming %s', (args, flag) => {
    let thrown: unknown;
    try {
      parseCoverageArgs(args, 1);
    } catch (error) {
      thrown = error;
    }
    expect(InvalidArgumentError.isInstance(thrown)).toBe(true);
    expect(String((thrown as Error).message)).toContain(flag);
  });
});
