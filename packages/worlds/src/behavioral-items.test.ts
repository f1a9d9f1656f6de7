import {
  type BehavioralItem,
  type BehavioralItemSet,
  BehavioralItemSetSchema,
  parseWith,
} from '@chi/spec';
import type { FramedChoiceFacts } from '@chi/spec/internal';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { generateBehavioralItems } from './behavioral-items';
import { solveBehavioralItem, solveFacts } from './behavioral-solver';

const seedArbitrary = fc.nat({ max: 0xffffffff });
const RUNS = { numRuns: 100 };

const countBy = <T>(values: readonly T[]): Map<T, number> => {
  const counts = new Map<T, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return counts;
};

function framedFacts(item: BehavioralItem | undefined): FramedChoiceFacts {
  if (item?.facts.kind !== 'framed-choice') throw new Error('expected an A item');
  return item.facts;
}

/** Final units kept, per option ID, as (probability %, units) outcomes. */
function finalOutcomes(facts: FramedChoiceFacts): Record<string, [number, number][]> {
  const kept = (units: number) => (facts.measure === 'kept' ? units : facts.stakeUnits - units);
  return Object.fromEntries(
    facts.options.map((option) => [
      option.id,
      option.kind === 'sure'
        ? [[100, kept(option.units)]]
        : [
            [option.probabilityPercent, kept(option.unitsWithProbability)],
            [100 - option.probabilityPercent, kept(option.unitsOtherwise)],
          ],
    ]),
  );
}

describe('generateBehavioralItems', () => {
  const set = generateBehavioralItems({ seed: 17 });

  it('registers 24 schema-valid items with an index-aligned key', () => {
    expect(() => parseWith(BehavioralItemSetSchema, set, 'behavioral items')).not.toThrow();
    expect(set.items).toHaveLength(24);
    expect(set.key.map((entry) => entry.itemId)).toEqual(set.items.map((item) => item.id));
    expect(new Set(set.items.map((item) => item.id)).size).toBe(24);
  });

  it('rejects a seed that is not a uint32', () => {
    expect(() => generateBehavioralItems({ seed: 2 ** 32 })).toThrow(/^seed: /);
  });

  it('is a pure function of the seed', () => {
    expect(generateBehavioralItems({ seed: 17 })).toEqual(set);
    expect(generateBehavioralItems({ seed: 18 })).not.toEqual(set);
  });
});

describe('generateBehavioralItems: properties over seeds', () => {
  it('balances the halves: 4 R, 2 C, 4 A, 2 I each, positions 0-11', () => {
    fc.assert(
      fc.property(seedArbitrary, (seed) => {
        const set = generateBehavioralItems({ seed });
        for (const half of [1, 2] as const) {
          const items = set.items.filter((item) => item.half === half);
          expect(Object.fromEntries(countBy(items.map((item) => item.axis)))).toEqual({
            R: 4,
            C: 2,
            A: 4,
            I: 2,
          });
          expect(items.map((item) => item.position).sort((left, right) => left - right)).toEqual([
            ...Array(12).keys(),
          ]);
          expect(
            Object.fromEntries(
              countBy(items.filter((item) => item.axis === 'R').map((item) => item.facts.kind)),
            ),
          ).toEqual({
            'symbol-rewrite': 2,
            'counterfactual-operator': 2,
          });
        }
      }),
      RUNS,
    );
  });

  it('answers every item with its key, from the facts alone', () => {
    fc.assert(
      fc.property(seedArbitrary, (seed) => {
        const set = generateBehavioralItems({ seed });
        return set.items.every((item, index) => {
          const expected = set.key[index]?.expected;
          return (
            solveBehavioralItem(item) === expected &&
            (item.options === null || item.options.includes(expected ?? ''))
          );
        });
      }),
      RUNS,
    );
  });

  it('splits every A pair across the halves with identical outcomes, option IDs and order', () => {
    fc.assert(
      fc.property(seedArbitrary, (seed) => {
        const set = generateBehavioralItems({ seed });
        const pairs = countBy(
          set.items.filter((item) => item.axis === 'A').map((item) => item.pairId),
        );
        expect(pairs.size).toBe(4);
        let positiveInFirstHalf = 0;
        let sureBetter = 0;
        for (const pairId of pairs.keys()) {
          const [left, right] = set.items.filter((item) => item.pairId === pairId);
          expect(left?.half).not.toBe(right?.half);
          expect(new Set([left?.frame, right?.frame])).toEqual(new Set(['positive', 'negative']));
          expect(left?.options).toEqual(right?.options);
          const leftFacts = framedFacts(left);
          const rightFacts = framedFacts(right);
          expect(finalOutcomes(leftFacts)).toEqual(finalOutcomes(rightFacts));
          expect(leftFacts.options.map((option) => option.kind)).toEqual(
            rightFacts.options.map((option) => option.kind),
          );
          const positive = left?.frame === 'positive' ? left : right;
          if (positive?.half === 1) positiveInFirstHalf += 1;
          const answer = solveFacts(leftFacts);
          if (leftFacts.options.find((option) => option.id === answer)?.kind === 'sure')
            sureBetter += 1;
          expect(set.key.find((entry) => entry.itemId === left?.id)?.expected).toBe(answer);
          expect(set.key.find((entry) => entry.itemId === right?.id)?.expected).toBe(answer);
        }
        // Counterbalanced: 2 of 4 pairs show the positive frame in half 1; the sure option is the
        // better choice in 2 of 4 pairs; each half has two frames of each kind.
        expect(positiveInFirstHalf).toBe(2);
        expect(sureBetter).toBe(2);
        for (const half of [1, 2]) {
          const frames = set.items
            .filter((item) => item.axis === 'A' && item.half === half)
            .map((item) => item.frame);
          expect(Object.fromEntries(countBy(frames))).toEqual({ positive: 2, negative: 2 });
        }
      }),
      RUNS,
    );
  });

  it('keeps a clear expected-value margin in A (at least 15%) and a 10% margin in C', () => {
    fc.assert(
      fc.property(seedArbitrary, (seed) => {
        const set = generateBehavioralItems({ seed });
        for (const item of set.items) {
          if (item.facts.kind === 'framed-choice' && item.facts.measure === 'kept') {
            const sure = item.facts.options.find((option) => option.kind === 'sure');
            const gamble = item.facts.options.find((option) => option.kind === 'gamble');
            if (sure?.kind !== 'sure' || gamble?.kind !== 'gamble')
              throw new Error('expected a sure option and a gamble');
            const gambleExpected = (gamble.probabilityPercent * gamble.unitsWithProbability) / 100;
            expect(Math.abs(sure.units - gambleExpected)).toBeGreaterThanOrEqual(
              0.15 * gambleExpected,
            );
          }
          if (item.facts.kind === 'information-gap') {
            const reward = item.facts.goal.rewardCredits;
            const likely = Math.max(
              ...item.facts.candidates.map((candidate) => candidate.workingProbabilityPercent),
            );
            expect(
              Math.abs(reward - item.facts.informationCostCredits - (likely * reward) / 100),
            ).toBeGreaterThanOrEqual(0.1 * reward);
            expect(likely).toBeGreaterThan(50);
          }
        }
      }),
      RUNS,
    );
  });

  it('gives each half one C item where seeking information is right and one where committing is', () => {
    fc.assert(
      fc.property(seedArbitrary, (seed) => {
        const set = generateBehavioralItems({ seed });
        const reasons: string[] = [];
        for (const half of [1, 2]) {
          const answers = set.items
            .map((item, index) => ({ item, expected: set.key[index]?.expected }))
            .filter(({ item }) => item.axis === 'C' && item.half === half);
          expect(answers.filter(({ expected }) => expected === 'inspect')).toHaveLength(1);
          for (const { item, expected } of answers) {
            if (item.facts.kind !== 'information-gap' || expected === 'inspect') continue;
            reasons.push(
              item.facts.informationCostCredits > item.facts.budgetCredits
                ? 'unaffordable'
                : 'not-worthwhile',
            );
          }
        }
        expect(reasons.sort()).toEqual(['not-worthwhile', 'unaffordable']);
      }),
      RUNS,
    );
  });

  it('makes every declared I constraint necessary: dropping any one changes the answer', () => {
    fc.assert(
      fc.property(seedArbitrary, (seed) => {
        const set = generateBehavioralItems({ seed });
        const integration = set.items.filter((item) => item.axis === 'I');
        expect(integration).toHaveLength(4);
        for (const item of integration) {
          if (item.facts.kind !== 'constrained-selection')
            throw new Error('expected constrained-selection facts');
          const facts = item.facts;
          const key = set.key.find((entry) => entry.itemId === item.id);
          expect(key?.constraints).toEqual(facts.constraints.map((constraint) => constraint.id));
          expect(facts.constraints.length).toBeGreaterThanOrEqual(2);
          expect(facts.records.length).toBeGreaterThan(facts.constraints.length);
          for (const dropped of facts.constraints) {
            const relaxed = {
              ...facts,
              constraints: facts.constraints.filter((constraint) => constraint !== dropped),
            };
            expect(solveFacts(relaxed)).not.toBe(key?.expected);
          }
        }
      }),
      RUNS,
    );
  });

  it('uses generated, not fixed, R tasks', () => {
    const tasks = new Set<string>();
    for (let seed = 0; seed < 20; seed++) {
      const set: BehavioralItemSet = generateBehavioralItems({ seed });
      for (const item of set.items) if (item.axis === 'R') tasks.add(JSON.stringify(item.facts));
    }
    expect(tasks.size).toBe(160);
  });
});
