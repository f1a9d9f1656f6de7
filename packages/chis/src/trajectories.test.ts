import { describe, expect, it } from 'vitest';
import { makeEntry } from './__fixtures__/entries';
import { groupTrajectories } from './trajectories';

describe('groupTrajectories', () => {
  it('groups by trajectory in order of first appearance and orders by checkpoint, then event count', () => {
    const input = [
      makeEntry('b', { checkpoint: 0, condition: 'baseline' }),
      makeEntry('a', { checkpoint: 1, condition: 'neutral', eventCount: 5 }),
      makeEntry('a', { checkpoint: 1, condition: 'neutral', eventCount: 3 }),
      makeEntry('a', { checkpoint: 0, condition: 'baseline', eventCount: 0 }),
      makeEntry('b', { checkpoint: 1, condition: 'neutral' }),
    ];
    const { trajectories } = groupTrajectories(input);
    expect(trajectories.map((t) => t.trajectoryId)).toEqual(['b', 'a']);
    expect(trajectories[1]!.entries.map((e) => [e.checkpoint, e.eventCount])).toEqual([
      [0, 0],
      [1, 3],
      [1, 5],
    ]);
    expect(trajectories[1]).toMatchObject({
      systemId: 'scripted-fixture',
      evidenceClass: 'fixture',
      worldSeed: 1,
      history: null,
    });
  });

  it('reports nothing for a clean log', () => {
    const input = [0, 1, 2].map((checkpoint) =>
      makeEntry('a', { checkpoint, condition: 'neutral' }),
    );
    expect(groupTrajectories(input).problems).toEqual([]);
  });

  it('reports identical and conflicting duplicates and keeps every entry', () => {
    const first = makeEntry('a', { checkpoint: 1, condition: 'neutral', decisionVector: [0] });
    const input = [
      makeEntry('a', { checkpoint: 0, condition: 'baseline' }),
      first,
      structuredClone(first),
      makeEntry('a', { checkpoint: 2, condition: 'neutral', decisionVector: [0] }),
      makeEntry('a', { checkpoint: 2, condition: 'neutral', decisionVector: [1] }),
    ];
    const { trajectories, problems } = groupTrajectories(input);
    expect(trajectories[0]!.entries).toHaveLength(5);
    expect(problems).toEqual([
      expect.objectContaining({
        kind: 'duplicate',
        checkpoint: 1,
        eventCount: 2,
        identical: true,
        inputIndices: [1, 2],
      }),
      expect.objectContaining({
        kind: 'duplicate',
        checkpoint: 2,
        eventCount: 4,
        identical: false,
        inputIndices: [3, 4],
      }),
    ]);
  });

  it('reports an entry that arrives after a later position of its trajectory', () => {
    const input = [
      makeEntry('a', { checkpoint: 0, condition: 'baseline' }),
      makeEntry('a', { checkpoint: 2, condition: 'neutral' }),
      makeEntry('b', { checkpoint: 0, condition: 'baseline' }),
      makeEntry('a', { checkpoint: 1, condition: 'neutral' }),
    ];
    expect(groupTrajectories(input).problems).toEqual([
      expect.objectContaining({
        kind: 'out-of-order',
        trajectoryId: 'a',
        inputIndex: 3,
        precededByInputIndex: 1,
      }),
    ]);
  });

  it('reports clocks that run backwards along the trajectory', () => {
    const late = {
      ...makeEntry('a', { checkpoint: 1, condition: 'neutral', eventCount: 9 }),
      elapsedWallMs: 10,
    };
    const early = makeEntry('a', { checkpoint: 2, condition: 'neutral', eventCount: 4 });
    const problems = groupTrajectories([late, early]).problems;
    expect(problems.map((p) => (p.kind === 'clock-regression' ? p.clock : p.kind))).toEqual([
      'eventCount',
    ]);
    const stale = {
      ...makeEntry('a', { checkpoint: 3, condition: 'neutral', eventCount: 10 }),
      recordedAt: '2025-01-01T00:00:00Z',
      scheduledOperations: 0,
    };
    const clocks = groupTrajectories([late, stale]).problems.map((p) =>
      p.kind === 'clock-regression' ? p.clock : p.kind,
    );
    expect(clocks).toEqual(['scheduledOperations', 'recordedAt']);
  });

  it('reports entries of one trajectory that disagree on identity', () => {
    const input = [
      makeEntry('a', { checkpoint: 0, condition: 'baseline', history: 'A' }),
      makeEntry('a', { checkpoint: 1, condition: 'neutral', history: 'B', systemId: 'other' }),
    ];
    expect(groupTrajectories(input).problems).toEqual([
      expect.objectContaining({
        kind: 'inconsistent-identity',
        field: 'systemId',
        values: ['scripted-fixture', 'other'],
      }),
      expect.objectContaining({
        kind: 'inconsistent-identity',
        field: 'history',
        values: ['A', 'B'],
      }),
    ]);
  });
});
