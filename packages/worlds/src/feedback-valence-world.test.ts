import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  feedbackText,
  generateFeedbackValenceWorld,
  VALENCE_WRAPPERS,
  VALENCES,
} from './feedback-valence-world';

describe('generateFeedbackValenceWorld', () => {
  it('is a pure function of the seed', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 32 - 1 }), (seed) => {
        expect(generateFeedbackValenceWorld(seed, 4)).toEqual(
          generateFeedbackValenceWorld(seed, 4),
        );
      }),
    );
  });

  it('gives the three conditions equal informational content: the texts differ only in their wrappers', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 32 - 1 }), (seed) => {
        const world = generateFeedbackValenceWorld(seed, 4);
        expect(world.trials.map((t) => t.valence).sort()).toEqual([...VALENCES].sort());
        for (const trial of world.trials) {
          const { open, close } = VALENCE_WRAPPERS[trial.valence];
          expect(trial.feedback).toBe(`${open} ${world.fact} ${close}`);
        }
      }),
    );
  });

  it('wrappers carry no digit (no fact) and no mood label', () => {
    for (const valence of VALENCES) {
      const { open, close } = VALENCE_WRAPPERS[valence];
      expect(`${open} ${close}`).not.toMatch(/\d|mood|positive|negative|neutral|valence/i);
      expect(feedbackText(valence, 'X.')).toBe(`${open} X. ${close}`);
    }
  });

  it('offers sure options and gambles of equal expected points, the gamble letter varying', () => {
    const letters = new Set<string>();
    for (let seed = 0; seed < 20; seed++) {
      for (const choice of generateFeedbackValenceWorld(seed, 4).choices) {
        expect(choice.gamble).toBe(2 * choice.sure);
        letters.add(choice.gambleOption);
      }
    }
    expect(letters).toEqual(new Set(['a', 'b']));
  });
});
