import {
  type ChartData as ChartDataFile,
  chartDataFile,
  isMemoryObservation,
  observationsOf,
} from '@chi/analysis';
import { withExperimentScores } from '@chi/analysis/test';
/**
 * Paired comparisons (docs/protocol.md, "Paired comparisons"): known truths from scripted scores
 * set by hand on the fixture run (two systems, four worlds, loads 8 and 16).
 */

import type { ChartData, MemoryObservation, RunScores } from '@chi/analysis';
import type { ComparisonRow } from '@chi/analysis/internal';
import { comparisonPairs, eimcCensoring } from '@chi/analysis/internal';
import { InvalidArgumentError } from '@chi/spec';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildFixtureRun } from '../__fixtures__/fixture-run';
import { tempDir } from '../__fixtures__/temp-dir';
import { type RunRecords, readRunFolder } from '../run-folder/run-folder';
import { analyzeRun } from './analyze-run';
import { scoreRun } from './score-run';

/** The analysis in the layout of `chart-data.json` (its experiment fields flat), as the tests read it. */
const analyzedFile = (...args: Parameters<typeof analyzeRun>): ChartDataFile =>
  chartDataFile(analyzeRun(...args));

/** Every factor of a world's notebook observation set to q (so the world-mean Q_M is mean(q)). */
function withQuality(o: MemoryObservation, q: number): MemoryObservation {
  const factors = { r: q, t: q, s: q, u: q, i: q, oneMinusF: q };
  return { ...o, score: { ...o.score, factors, qualityScore: q } };
}

/** Notebook Q per system and world, set by hand (every load alike). */
function handMemory(scores: RunScores, q: Record<string, Record<number, number>>): RunScores {
  const memory = observationsOf(scores, 'memory', isMemoryObservation).map((o) => {
    const value = q[o.systemId]?.[o.worldSeed];
    return o.condition === 'notebook' && value !== undefined ? withQuality(o, value) : o;
  });
  return withExperimentScores(scores, 'memory', { observations: memory });
}

/** The scores with forgetful's every observation replaced by keeper's: a system against itself. */
function twin(scores: RunScores): RunScores {
  const copy = <T extends { systemId: string }>(list: readonly T[]): T[] => [
    ...list.filter((o) => o.systemId === 'keeper'),
    ...list.filter((o) => o.systemId === 'keeper').map((o) => ({ ...o, systemId: 'forgetful' })),
  ];
  let twins = scores;
  for (const id of ['memory', 'history', 'behavior'])
    twins = withExperimentScores(twins, id, {
      observations: copy(scores.modules.get(id)?.observations ?? []),
    });
  return twins;
}

const rowsOf = (data: ChartData, quantity: ComparisonRow['quantity']) =>
  (data.comparisons?.rows ?? []).filter((row) => row.quantity === quantity);

describe('paired comparisons', () => {
  let dir: { path: string; remove: () => Promise<void> };
  let records: RunRecords;
  let scores: RunScores;
  beforeAll(async () => {
    dir = await tempDir('comparisons');
    await buildFixtureRun(dir.path, { seeds: [11, 12, 13, 14], resamples: 400 });
    records = await readRunFolder(dir.path);
    scores = scoreRun(records);
  });
  afterAll(async () => dir.remove());

  it('a system against itself: every difference exactly 0, interval [0, 0], nothing differs', () => {
    const same = twin(
      handMemory(scores, {
        keeper: { 11: 0.2, 12: 0.9, 13: 0.5, 14: 0.7 },
      }),
    );
    const data = analyzedFile(records, same);
    const rows = data.comparisons?.rows ?? [];
    expect(rows.map((row) => row.quantity)).toEqual([
      'qualityScore',
      'qualityScore',
      'eimc',
      'eimc',
      'eimc',
      'excessDivergence',
      'behavior',
      'behavior',
      'behavior',
      'behavior',
      'behavior',
    ]);
    for (const row of rows) {
      expect([row.systemA, row.systemB]).toEqual(['keeper', 'forgetful']);
      expect(row.scripted).toBe(true);
      if (row.difference.estimate === null) continue;
      expect(row.difference.estimate).toBe(0);
      if (row.difference.intervalNote === null) {
        expect([row.difference.lower, row.difference.upper]).toEqual([0, 0]);
      }
      expect(row.differsFamilyWise === true).toBe(false);
    }
    // the marginal intervals of the same numbers are wide: pairing, not the data, makes 0 wide
    const q8 = data.memory.find((p) => p.systemId === 'keeper' && p.load === 8);
    expect((q8?.qualityScore.upper ?? 0) - (q8?.qualityScore.lower ?? 0)).toBeGreaterThan(0.2);
    expect(rowsOf(data, 'qualityScore')[0]?.pValue).toBe(1);
  });

  it('perfect reference vs all-abstainer: Q_M difference exactly 1, EIMC censored toward zero', () => {
    const ones = { 11: 1, 12: 1, 13: 1, 14: 1 };
    const zeros = { 11: 0, 12: 0, 13: 0, 14: 0 };
    const data = analyzedFile(records, handMemory(scores, { keeper: ones, forgetful: zeros }));
    for (const row of rowsOf(data, 'qualityScore')) {
      expect(row.difference).toMatchObject({ estimate: 1, lower: 1, upper: 1, worlds: 4 });
      expect(row.pValue).toBe(0);
      expect(row.differsFamilyWise).toBe(true);
    }
    for (const row of rowsOf(data, 'eimc')) {
      expect(row).toMatchObject({
        valueA: 16,
        valueB: null,
        statusA: 'lower_bound',
        statusB: 'no_passing_load',
        censoring: 'toward_zero',
      });
      // coded 16 - 8: the true difference is larger (A at least 16, B below 8)
      expect(row.difference.estimate).toBe(8);
    }
    const family = data.comparisons?.family ?? 0;
    expect(family).toBe((data.comparisons?.rows ?? []).filter((r) => r.pValue !== null).length);
    expect(data.comparisons?.adjustment).toBe('holm');
  });

  it('pairing narrows the interval: a hand-worked difference of exactly 0.1 in every world', () => {
    // A = 0.2, 0.4, 0.6, 0.8 and B = A - 0.1: every multiset of worlds gives mean(A) - mean(B)
    // = 0.1, so the paired interval is [0.1, 0.1]; the marginal intervals of A (around 0.5) and
    // B (around 0.4) each span about 0.4, and subtracting them by eye gives about [-0.3, 0.5].
    const data = analyzedFile(
      records,
      handMemory(scores, {
        keeper: { 11: 0.2, 12: 0.4, 13: 0.6, 14: 0.8 },
        forgetful: { 11: 0.1, 12: 0.3, 13: 0.5, 14: 0.7 },
      }),
    );
    const row = rowsOf(data, 'qualityScore').find((r) => r.load === 8) as ComparisonRow;
    expect(row.valueA).toBeCloseTo(0.5, 12);
    expect(row.valueB).toBeCloseTo(0.4, 12);
    expect(row.difference.estimate).toBeCloseTo(0.1, 12);
    expect(row.difference.lower).toBeCloseTo(0.1, 12);
    expect(row.difference.upper).toBeCloseTo(0.1, 12);
    const marginal = (id: string) =>
      data.memory.find((p) => p.systemId === id && p.condition === 'notebook' && p.load === 8)
        ?.qualityScore;
    const a = marginal('keeper');
    const b = marginal('forgetful');
    const byEye = [(a?.lower ?? 0) - (b?.upper ?? 0), (a?.upper ?? 0) - (b?.lower ?? 0)];
    expect(byEye[0]).toBeLessThan(0);
    expect((byEye[1] ?? 0) - (byEye[0] ?? 0)).toBeGreaterThan(0.4);
    expect(row.differsFamilyWise).toBe(true);
  });

  it('uses only the worlds complete in both systems cells', async () => {
    const holes = await tempDir('comparisons-holes');
    try {
      await buildFixtureRun(holes.path, {
        seeds: [11, 12, 13, 14],
        resamples: 50,
        infrastructureFailures: ['keeper.memory.w13.n8.probe.b0'],
      });
      const run = await readRunFolder(holes.path);
      const data = analyzedFile(run, scoreRun(run));
      for (const row of rowsOf(data, 'qualityScore')) {
        expect(row.worldSeeds).toEqual([11, 12, 14]);
        expect(row.difference.worlds).toBe(3);
      }
    } finally {
      await holes.remove();
    }
  });

  it('--compare-to names a system of the run, or is refused naming the field', () => {
    const data = analyzedFile(records, scores, { compareTo: 'keeper' });
    expect(data.comparisons?.referenceSystem).toBe('keeper');
    expect(new Set(data.comparisons?.rows.map((r) => `${r.systemA}-${r.systemB}`))).toEqual(
      new Set(['forgetful-keeper']),
    );
    expect(() => analyzedFile(records, scores, { compareTo: 'nobody' })).toThrow(
      InvalidArgumentError,
    );
    expect(() => analyzedFile(records, scores, { compareTo: 'nobody' })).toThrow(/compareTo/);
  });
});

describe('comparisonPairs and eimcCensoring', () => {
  it('lists every pair in manifest order, or each system against the reference', () => {
    expect(comparisonPairs(['a', 'b', 'c'], null)).toEqual([
      ['a', 'b'],
      ['a', 'c'],
      ['b', 'c'],
    ]);
    expect(comparisonPairs(['a', 'b', 'c'], 'b')).toEqual([
      ['a', 'b'],
      ['c', 'b'],
    ]);
  });

  it('calls a difference exact only between two capacities', () => {
    expect(eimcCensoring('capacity', 'capacity')).toBe('none');
    expect(eimcCensoring('lower_bound', 'capacity')).toBe('toward_zero');
    expect(eimcCensoring('lower_bound', 'no_passing_load')).toBe('toward_zero');
    expect(eimcCensoring('lower_bound', 'lower_bound')).toBe('both_same_side');
    expect(eimcCensoring('no_passing_load', 'no_passing_load')).toBe('both_same_side');
  });
});
