import { describe, expect, it } from 'vitest';
import { makeTrajectory } from './__fixtures__/entries';
import { drift } from './drift';

const entries = makeTrajectory('w1-A', [
  { checkpoint: 0, condition: 'baseline', decisionVector: [0.5, 0.5, 0.5, 0.5] },
  { checkpoint: 1, condition: 'history', decisionVector: [0, 0.5, 1, 1] },
  { checkpoint: 2, condition: 'neutral', decisionVector: [0, 0.5, 1, 0.5] },
  { checkpoint: 3, condition: 'neutral', decisionVector: [0, 1, 1, 0.5] },
  { checkpoint: 4, condition: 'correction', decisionVector: [1, 1, 0, 0.5] },
]);

describe('drift', () => {
  it('is D(baseline, last entry), with the series and the rate per event', () => {
    // D(0, 4) = (0.5 + 0.5 + 0.5 + 0) / 4 = 0.375 over 8 events (event count = 2 * checkpoint)
    const result = drift(entries);
    expect(result.value).toBe(0.375);
    expect(result.eventSpan).toBe(8);
    expect(result.perEvent).toBe(0.046875);
    expect(result.series.map((point) => [point.entry.checkpoint, point.distance])).toEqual([
      [1, 0.375],
      [2, 0.25],
      [3, 0.375],
      [4, 0.375],
    ]);
    expect(result.used.map((ref) => ref.checkpoint)).toEqual([0, 4]);
  });

  it('takes another target or baseline by checkpoint or condition', () => {
    expect(drift(entries, { target: { checkpoint: 2 } }).value).toBe(0.25);
    expect(
      drift(entries, { baseline: { condition: 'history' }, target: { checkpoint: 3 } }).value,
    ).toBe(0.25);
  });

  it('is null without a baseline, or when the target does not come after it', () => {
    expect(drift(entries.slice(1)).reason).toBe('no baseline entry (condition "baseline")');
    expect(drift(entries, { baseline: { checkpoint: 3 }, target: { checkpoint: 1 } }).reason).toBe(
      'the target (checkpoint 1) does not come after the baseline (checkpoint 3)',
    );
    expect(drift(entries, { target: { checkpoint: 9 } }).reason).toBe(
      'no target entry (checkpoint 9)',
    );
  });

  it('keeps the series when the target is undefined, and gives no rate over zero events', () => {
    const withInvalid = makeTrajectory('t', [
      { checkpoint: 0, condition: 'baseline', decisionVector: [0], eventCount: 0 },
      { checkpoint: 1, condition: 'neutral', decisionVector: [1], eventCount: 0 },
      { checkpoint: 2, condition: 'neutral', decisionVector: [null], eventCount: 1 },
    ]);
    const result = drift(withInvalid);
    expect(result).toMatchObject({
      value: null,
      perEvent: null,
      reason: 'decision coordinate 0 of t checkpoint 2 is invalid (null)',
    });
    expect(result.series.map((point) => point.distance)).toEqual([1, null]);
    expect(drift(withInvalid, { target: { checkpoint: 1 } })).toMatchObject({
      value: 1,
      eventSpan: 0,
      perEvent: null,
    });
  });

  it('rejects a malformed selector', () => {
    expect(() => drift(entries, { target: { checkpoint: -1 } })).toThrow(/^target:/);
  });
});
