import { describe, expect, it } from 'vitest';
import { makeTrajectory } from './__fixtures__/entries';
import { stability } from './stability';

describe('stability', () => {
  it('is the sample SD of a named profile feature across neutral checkpoints', () => {
    const entries = makeTrajectory('t', [
      { checkpoint: 0, condition: 'baseline', profile: { accuracy: 0 } },
      { checkpoint: 1, condition: 'neutral', profile: { accuracy: 0.5 } },
      { checkpoint: 2, condition: 'neutral', profile: { accuracy: 0.75 } },
      { checkpoint: 3, condition: 'neutral', profile: { accuracy: 1 } },
      { checkpoint: 4, condition: 'correction', profile: { accuracy: 0 } },
    ]);
    // mean 0.75; squared deviations 0.0625 + 0 + 0.0625 over n - 1 = 2 -> variance 0.0625, SD 0.25
    const result = stability(entries, { response: { profileFeatures: ['accuracy'] } });
    expect(result).toMatchObject({
      value: 0.25,
      neutralEntries: 3,
      coordinateSds: [0.25],
      meanAbsoluteDeviation: 1 / 6,
    });
    expect(result.used.map((ref) => ref.checkpoint)).toEqual([1, 2, 3]);
  });

  it('averages the per-coordinate SDs of the decision vector', () => {
    const entries = makeTrajectory('t', [
      { checkpoint: 2, condition: 'neutral', decisionVector: [0, 0.5, 1, 0.5] },
      { checkpoint: 3, condition: 'neutral', decisionVector: [0, 1, 1, 0.5] },
    ]);
    // only coordinate 1 varies: variance of (0.5, 1) = 2 * 0.25^2 / 1 = 0.125
    const result = stability(entries);
    expect(result.coordinateSds).toEqual([0, Math.sqrt(0.125), 0, 0]);
    expect(result.value).toBe(Math.sqrt(0.125) / 4);
    expect(result.meanAbsoluteDeviation).toBe(0.0625);
  });

  it('is 0 for identical neutral responses, and null below two neutral entries or with an invalid coordinate', () => {
    const same = makeTrajectory('t', [
      { checkpoint: 1, condition: 'neutral', decisionVector: [0.5] },
      { checkpoint: 2, condition: 'neutral', decisionVector: [0.5] },
    ]);
    expect(stability(same).value).toBe(0);
    expect(stability(same.slice(0, 1)).reason).toBe('needs at least two neutral entries, found 1');
    const invalid = makeTrajectory('t', [
      { checkpoint: 1, condition: 'neutral', decisionVector: [0.5] },
      { checkpoint: 2, condition: 'neutral', decisionVector: [null] },
    ]);
    expect(stability(invalid).reason).toBe(
      'decision coordinate 0 of t checkpoint 2 is invalid (null)',
    );
  });

  it('refuses responses of different widths', () => {
    const entries = makeTrajectory('t', [
      { checkpoint: 1, condition: 'neutral', decisionVector: [0.5, 0.5] },
      { checkpoint: 2, condition: 'neutral', decisionVector: [0.5] },
    ]);
    expect(() => stability(entries)).toThrow(
      'entries: t checkpoint 2 has 1 coordinates but t checkpoint 1 has 2',
    );
  });
});
