import { InvalidArgumentError } from '@chi/spec';
import type {
  ConstrainedSelectionFacts,
  FramedChoiceFacts,
  InformationGapFacts,
} from '@chi/spec/internal';
import { describe, expect, it } from 'vitest';
import { rewriteSymbols, solveFacts } from './behavioral-solver';

describe('solveFacts: R', () => {
  it('rewrites every symbol in parallel, step by step', () => {
    // K -> KM, M -> K: K, KM, KMK, KMKKM (a Fibonacci word).
    const facts = {
      kind: 'symbol-rewrite' as const,
      symbols: ['K', 'M'],
      rules: [
        { from: 'K', to: 'KM' },
        { from: 'M', to: 'K' },
      ],
      start: 'K',
      steps: 3,
    };
    expect(solveFacts(facts)).toBe('KMKKM');
    expect(rewriteSymbols(facts, 1)).toBe('KM');
    expect(() => rewriteSymbols({ ...facts, start: 'KX' }, 1)).toThrow(
      /no rule rewrites symbol "X"/,
    );
  });

  it('evaluates the counterfactual operator with the stated grouping', () => {
    // a ∘ b = 2a + 3b - 1. (4 ∘ 5) ∘ 2 = (8 + 15 - 1) ∘ 2 = 22 ∘ 2 = 44 + 6 - 1 = 49.
    // 4 ∘ (5 ∘ 2) = 4 ∘ (10 + 6 - 1) = 4 ∘ 15 = 8 + 45 - 1 = 52.
    const operator = { leftCoefficient: 2, rightCoefficient: 3, constant: -1 };
    const base = {
      kind: 'counterfactual-operator' as const,
      operator,
      operands: [4, 5, 2] as [number, number, number],
    };
    expect(solveFacts({ ...base, grouping: 'left' })).toBe('49');
    expect(solveFacts({ ...base, grouping: 'right' })).toBe('52');
  });
});

describe('solveFacts: C', () => {
  const gap: InformationGapFacts = {
    kind: 'information-gap',
    goal: { rewardCredits: 200 },
    budgetCredits: 50,
    informationCostCredits: 30,
    informationAction: 'inspect',
    candidates: [
      { id: 'plan-a', workingProbabilityPercent: 30 },
      { id: 'plan-b', workingProbabilityPercent: 70 },
    ],
  };

  it('inspects when the information is affordable and worth more than it costs', () => {
    // Inspect: 200 - 30 = 170 expected; commit to plan-b: 0.7 * 200 = 140.
    expect(solveFacts(gap)).toBe('inspect');
  });

  it('commits to the likelier candidate when the information is over budget', () => {
    expect(solveFacts({ ...gap, budgetCredits: 25 })).toBe('plan-b');
  });

  it('commits when the information costs more than it is worth', () => {
    // Inspect: 200 - 80 = 120 < 140.
    expect(solveFacts({ ...gap, informationCostCredits: 80, budgetCredits: 100 })).toBe('plan-b');
  });

  it('refuses facts without a unique answer', () => {
    expect(() => solveFacts({ ...gap, informationCostCredits: 60, budgetCredits: 100 })).toThrow(
      InvalidArgumentError,
    );
  });
});

describe('solveFacts: A', () => {
  const positive: FramedChoiceFacts = {
    kind: 'framed-choice',
    frame: 'positive',
    stakeUnits: 600,
    measure: 'kept',
    options: [
      { id: 'plan-sure', kind: 'sure', units: 200 },
      {
        id: 'plan-gamble',
        kind: 'gamble',
        probabilityPercent: 40,
        unitsWithProbability: 600,
        unitsOtherwise: 0,
      },
    ],
  };
  const negative: FramedChoiceFacts = {
    kind: 'framed-choice',
    frame: 'negative',
    stakeUnits: 600,
    measure: 'lost',
    options: [
      { id: 'plan-sure', kind: 'sure', units: 400 },
      {
        id: 'plan-gamble',
        kind: 'gamble',
        probabilityPercent: 40,
        unitsWithProbability: 0,
        unitsOtherwise: 600,
      },
    ],
  };

  it('picks the option with the better expected final outcome in either frame', () => {
    // Kept: sure 200, gamble 0.4 * 600 = 240. Lost: sure 400, gamble 0.6 * 600 = 360.
    expect(solveFacts(positive)).toBe('plan-gamble');
    expect(solveFacts(negative)).toBe('plan-gamble');
  });

  it('refuses equal expected values', () => {
    const equal = {
      ...positive,
      options: [{ id: 'x', kind: 'sure' as const, units: 240 }, positive.options[1]],
    } as FramedChoiceFacts;
    expect(() => solveFacts(equal)).toThrow(/equal expected value/);
  });
});

describe('solveFacts: I', () => {
  const facts: ConstrainedSelectionFacts = {
    kind: 'constrained-selection',
    candidates: ['opt-w', 'opt-d', 'opt-f'],
    records: [
      {
        id: 'rec-1',
        source: 'src-1',
        attribute: 'costCredits',
        values: [
          { candidate: 'opt-d', value: 300 },
          { candidate: 'opt-w', value: 200 },
          { candidate: 'opt-f', value: 100 },
        ],
      },
      {
        id: 'rec-2',
        source: 'src-2',
        attribute: 'ratingPoints',
        values: [
          { candidate: 'opt-w', value: 80 },
          { candidate: 'opt-d', value: 90 },
          { candidate: 'opt-f', value: 50 },
        ],
      },
    ],
    constraints: [
      { id: 'costCredits<=250', attribute: 'costCredits', comparison: 'at-most', limit: 250 },
    ],
    objective: { attribute: 'ratingPoints', direction: 'maximize' },
  };

  it('takes the best-rated candidate that satisfies every constraint', () => {
    expect(solveFacts(facts)).toBe('opt-w');
    expect(solveFacts({ ...facts, constraints: [] })).toBe('opt-d');
  });

  it('names a missing attribute and an infeasible set', () => {
    expect(() =>
      solveFacts({
        ...facts,
        records: [facts.records[1] as ConstrainedSelectionFacts['records'][number]],
      }),
    ).toThrow(/no record gives costCredits of candidate/);
    expect(() =>
      solveFacts({
        ...facts,
        constraints: [{ id: 'c', attribute: 'costCredits', comparison: 'at-most', limit: 50 }],
      }),
    ).toThrow(/no candidate satisfies every constraint/);
  });
});
