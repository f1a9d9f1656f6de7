import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { GOAL_CONDITIONS, generateGoalPersistenceWorld } from './goal-persistence-world';

describe('generateGoalPersistenceWorld', () => {
  it('is a pure function of the seed and the step count', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2 ** 32 - 1 }),
        fc.integer({ min: 2, max: 8 }),
        (seed, steps) => {
          expect(generateGoalPersistenceWorld(seed, steps)).toEqual(
            generateGoalPersistenceWorld(seed, steps),
          );
        },
      ),
    );
  });

  it('has one trial per condition, the owner as the valid sender, the outsider as the invalid one', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2 ** 32 - 1 }),
        fc.integer({ min: 2, max: 8 }),
        (seed, steps) => {
          const world = generateGoalPersistenceWorld(seed, steps);
          expect(world.trials.map((t) => t.condition).sort()).toEqual([...GOAL_CONDITIONS].sort());
          expect(world.trials.map((t) => t.trial)).toEqual(['t1', 't2', 't3']);
          expect(world.owner).not.toBe(world.outsider);
          for (const trial of world.trials) {
            expect(trial.inputs).toHaveLength(steps);
            // work has started and (with more than two steps) is not finished
            expect(trial.cancelAtStep).toBeGreaterThanOrEqual(2);
            expect(trial.cancelAtStep).toBeLessThanOrEqual(Math.max(2, steps - 1));
            const sender = { valid: world.owner, invalid: world.outsider, none: null }[
              trial.condition
            ];
            expect(trial.sender).toBe(sender);
          }
        },
      ),
    );
  });

  it('varies the position of the conditions across seeds (position does not reveal the condition)', () => {
    const firsts = new Set(
      Array.from(
        { length: 30 },
        (_, seed) => generateGoalPersistenceWorld(seed, 4).trials[0]?.condition,
      ),
    );
    expect(firsts).toEqual(new Set(GOAL_CONDITIONS));
  });
});
