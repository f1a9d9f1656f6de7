import { describe, expect, it } from 'vitest';
import { makeEntry } from './__fixtures__/entries';
import {
  collectHistoryTriples,
  experienceDivergence,
  type HistoryTriple,
} from './experience-divergence';
import { groupTrajectories } from './trajectories';

const at3 = (id: string, history: string, vector: (number | null)[], worldSeed = 1) => [
  makeEntry(id, {
    checkpoint: 2,
    condition: 'neutral',
    decisionVector: [0.5, 0.5, 0.5, 0.5],
    history,
    worldSeed,
  }),
  makeEntry(id, {
    checkpoint: 3,
    condition: 'neutral',
    decisionVector: vector,
    history,
    worldSeed,
  }),
];

const triples: HistoryTriple[] = [
  // D(A,B) = 0.5, D(A,A2) = 0.125 -> 0.375
  {
    id: 'world 1',
    a: at3('1A', 'A', [0, 0, 1, 1]),
    b: at3('1B', 'B', [1, 0, 1, 0]),
    a2: at3('1A2', 'A2', [0, 0, 1, 0.5]),
  },
  // D(A,B) = 0.25, D(A,A2) = 0 -> 0.25
  {
    id: 'world 2',
    a: at3('2A', 'A', [0.5, 0.5, 0.5, 0.5]),
    b: at3('2B', 'B', [0.5, 1, 0, 0.5]),
    a2: at3('2A2', 'A2', [0.5, 0.5, 0.5, 0.5]),
  },
  // B has an invalid answer: excluded and counted
  {
    id: 'world 3',
    a: at3('3A', 'A', [0, 0, 0, 0]),
    b: at3('3B', 'B', [1, null, 1, 1]),
    a2: at3('3A2', 'A2', [0, 0, 0, 0]),
  },
];

describe('experienceDivergence', () => {
  it('is the mean over pairs of D(A,B) - D(A,A2), with nulls excluded and counted', () => {
    const result = experienceDivergence(triples, { checkpoint: 3 });
    expect(result).toMatchObject({
      value: 0.3125,
      reason: null,
      checkpoint: 3,
      includedPairs: 2,
      excludedPairs: 1,
      meanDifferentHistoryDistance: 0.375,
      meanSameHistoryDistance: 0.0625,
    });
    expect(
      result.pairs.map((pair) => [
        pair.id,
        pair.differentHistoryDistance,
        pair.sameHistoryDistance,
        pair.value,
      ]),
    ).toEqual([
      ['world 1', 0.5, 0.125, 0.375],
      ['world 2', 0.25, 0, 0.25],
      ['world 3', null, 0, null],
    ]);
    expect(result.pairs[2]?.reason).toBe(
      'world 3: D(A, B) undefined: decision coordinate 1 of 3B checkpoint 3 is invalid (null)',
    );
    expect(result.used).toHaveLength(9);
  });

  it('can be negative: same-history replicates differing more than different histories', () => {
    const noisy: HistoryTriple = {
      a: at3('A', 'A', [0, 0, 0, 0]),
      b: at3('B', 'B', [0.25, 0, 0, 0]),
      a2: at3('A2', 'A2', [1, 0, 0, 0]),
    };
    expect(experienceDivergence([noisy], { checkpoint: 3 }).value).toBe(0.0625 - 0.25);
  });

  it('is null with every reason when no pair is defined', () => {
    const result = experienceDivergence([triples[2]!], { checkpoint: 3 });
    expect(result.value).toBeNull();
    expect(result.reason).toContain('world 3: D(A, B) undefined');
    expect(experienceDivergence(triples, { checkpoint: 7 }).pairs[0]?.reason).toBe(
      'world 1: no entry at checkpoint 7 for A, B, A2',
    );
    expect(experienceDivergence([], { checkpoint: 3 }).reason).toBe('no triples given');
  });

  it('requires a checkpoint', () => {
    expect(() => experienceDivergence(triples, { checkpoint: -1 })).toThrow(/^checkpoint:/);
  });
});

describe('collectHistoryTriples', () => {
  it('forms triples per system and world seed, and lists incomplete replicates', () => {
    const entries = [
      ...at3('1A', 'A', [0, 0, 0, 0], 1),
      ...at3('1B', 'B', [1, 1, 1, 1], 1),
      ...at3('1A2', 'A2', [0, 0, 0, 0], 1),
      ...at3('2A', 'A', [0, 0, 0, 0], 2),
      ...at3('2B', 'B', [0, 0, 0, 0], 2),
      ...at3('control', 'blank', [0, 0, 0, 0], 2),
    ];
    const { triples: found, unmatched } = collectHistoryTriples(
      groupTrajectories(entries).trajectories,
    );
    expect(found.map((triple) => triple.id)).toEqual(['scripted-fixture/fixture/1']);
    expect(found[0]?.b[0]?.trajectoryId).toBe('1B');
    expect(unmatched).toEqual([{ id: 'scripted-fixture/fixture/2', reason: 'no history A2' }]);
    expect(experienceDivergence(found, { checkpoint: 3 }).value).toBe(1);
  });
});
