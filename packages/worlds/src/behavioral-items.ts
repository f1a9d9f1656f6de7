import type { BehavioralItem, BehavioralItemSet, BehavioralKey } from '@chi/spec';
import type {
  BehavioralAxis,
  BehavioralFacts,
  ConstrainedSelectionFacts,
  CounterfactualOperatorFacts,
  Frame,
  FramedChoiceFacts,
  InformationGapFacts,
  SelectionConstraint,
  SymbolRewriteFacts,
} from '@chi/spec/internal';
import { applyOperator, rewriteSymbols } from './behavioral-solver';
import { createRandom, type SeededRandom } from './random';
import { assertSeedArgument, deriveSeed } from './seed';
import { generatorInfo } from './version';

/** Options of {@link generateBehavioralItems}. */
export interface BehavioralItemsOptions {
  /** The world seed, an unsigned 32-bit integer (the same one the memory world uses is fine). */
  readonly seed: number;
}

type Half = 1 | 2;

/** An item before it gets its ID and position. */
interface Draft {
  readonly axis: BehavioralAxis;
  readonly half: Half;
  readonly pairId: string | null;
  readonly frame: Frame | null;
  readonly options: string[] | null;
  readonly facts: BehavioralFacts;
  readonly expected: string;
  readonly constraints: string[];
}

/** Unique lowercase tokens with a prefix, e.g. `plan-7kq2`, never repeated within one item set. */
class TokenPool {
  readonly #taken = new Set<string>();
  constructor(private readonly random: SeededRandom) {}

  next(prefix: string, length = 4): string {
    for (;;) {
      const token = `${prefix}-${this.random.token(length)}`;
      if (this.#taken.has(token)) continue;
      this.#taken.add(token);
      return token;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// R: symbolic rules and counterfactual arithmetic

const REWRITE_SYMBOLS = 'BDFGHJKLMNPRSTVXZ';

/**
 * Three symbols, one rule each (right-hand sides of 1 or 2 symbols, at least one of 2), a start
 * of 2-3 symbols and 2-3 steps; redrawn until the answer has 4-24 symbols and differs from the
 * string one step earlier (so stopping early is wrong).
 */
function symbolRewrite(random: SeededRandom): SymbolRewriteFacts {
  for (;;) {
    const symbols = random
      .sampleDistinct(REWRITE_SYMBOLS.length, 3)
      .map((index) => REWRITE_SYMBOLS[index] as string);
    const draw = (length: number): string => {
      let text = '';
      for (let index = 0; index < length; index++) text += random.pick(symbols);
      return text;
    };
    const rules = symbols.map((from) => ({ from, to: draw(random.int(1, 2)) }));
    const start = draw(random.int(2, 3));
    const steps = random.int(2, 3);
    if (!rules.some((rule) => rule.to.length === 2)) continue;
    const facts: SymbolRewriteFacts = { kind: 'symbol-rewrite', symbols, rules, start, steps };
    const answer = rewriteSymbols(facts, steps);
    if (answer.length < 4 || answer === rewriteSymbols(facts, steps - 1)) continue;
    return facts;
  }
}

/**
 * `a ∘ b = p*a + q*b + c` with p in 2..5, q in 1..4 (p != q, so grouping matters), c in
 * -6..6 except 0, operands 2..9; redrawn until the answer differs from the other grouping and
 * from the ordinary sum of the operands.
 */
function counterfactualOperator(random: SeededRandom): CounterfactualOperatorFacts {
  for (;;) {
    const operator = {
      leftCoefficient: random.int(2, 5),
      rightCoefficient: random.int(1, 4),
      constant: random.int(-6, 6),
    };
    const operands: [number, number, number] = [
      random.int(2, 9),
      random.int(2, 9),
      random.int(2, 9),
    ];
    const grouping = random.pick(['left', 'right'] as const);
    if (operator.leftCoefficient === operator.rightCoefficient || operator.constant === 0) continue;
    const [x, y, z] = operands;
    const left = applyOperator(operator, applyOperator(operator, x, y), z);
    const right = applyOperator(operator, x, applyOperator(operator, y, z));
    const answer = grouping === 'left' ? left : right;
    if (left === right || answer === x + y + z) continue;
    return { kind: 'counterfactual-operator', operator, operands, grouping };
  }
}

// ---------------------------------------------------------------------------------------------
// C: next action under an information gap

/** Which next action is right, and why. */
type InformationCase = 'inspect' | 'unaffordable' | 'not-worthwhile';
const INFORMATION_ACTION = 'inspect';

const floorTo5 = (value: number): number => 5 * Math.floor(value / 5);
const ceilTo5 = (value: number): number => 5 * Math.ceil(value / 5);

/**
 * Reward R in 100..500, the likelier candidate works with p in 60..80%. Inspecting is worth it
 * when R - cost beats p*R; every case keeps a margin of at least 10% of R, so the right action is
 * unambiguous. `inspect`: worth it and within budget. `unaffordable`: would be worth it but costs
 * more than the budget, so commit to the likelier candidate. `not-worthwhile`: affordable but
 * the cost exceeds the value of the information, so commit.
 */
function informationGap(
  random: SeededRandom,
  tokens: TokenPool,
  which: InformationCase,
): InformationGapFacts {
  const rewardCredits = 50 * random.int(2, 10);
  const likelyPercent = 5 * random.int(12, 16);
  let informationCostCredits: number;
  let budgetCredits: number;
  if (which === 'not-worthwhile') {
    const low = ceilTo5(((110 - likelyPercent) * rewardCredits) / 100);
    const high = floorTo5(0.95 * rewardCredits);
    informationCostCredits = 5 * random.int(low / 5, high / 5);
    budgetCredits = informationCostCredits + 5 * random.int(0, 10);
  } else {
    const low = Math.max(5, ceilTo5(0.05 * rewardCredits));
    const high = floorTo5(((90 - likelyPercent) * rewardCredits) / 100);
    informationCostCredits = 5 * random.int(low / 5, high / 5);
    budgetCredits =
      which === 'inspect'
        ? informationCostCredits + 5 * random.int(1, 10)
        : 5 * random.int(0, informationCostCredits / 5 - 1);
  }
  const candidates = random.shuffle([
    { id: tokens.next('plan'), workingProbabilityPercent: likelyPercent },
    { id: tokens.next('plan'), workingProbabilityPercent: 100 - likelyPercent },
  ]);
  return {
    kind: 'information-gap',
    goal: { rewardCredits },
    budgetCredits,
    informationCostCredits,
    informationAction: INFORMATION_ACTION,
    candidates,
  };
}

// ---------------------------------------------------------------------------------------------
// A: matched expected-value choices in a positive and a negative frame

const GAMBLE_PERCENTS = [20, 25, 40, 50, 60, 75, 80] as const;

interface FramedPair {
  readonly positive: FramedChoiceFacts;
  readonly negative: FramedChoiceFacts;
  readonly expected: string;
}

/**
 * A stake T (200..1200 units), a gamble that keeps everything with probability p (else nothing)
 * and a sure option S with |S - p*T| >= 15% of p*T, above p*T when the sure option is to be
 * better and below otherwise. The positive frame counts units kept (S; T or 0), the negative
 * frame units lost (T - S; 0 or T): identical outcomes, same option IDs in the same order.
 */
function framedPair(
  random: SeededRandom,
  tokens: TokenPool,
  sureIsBetter: boolean,
  sureFirst: boolean,
): FramedPair {
  for (;;) {
    const stakeUnits = 100 * random.int(2, 12);
    const probabilityPercent = random.pick(GAMBLE_PERCENTS);
    const gambleExpected = (probabilityPercent * stakeUnits) / 100;
    const shiftPercent = random.int(20, 40);
    const sureUnits =
      10 *
      Math.round(
        (gambleExpected * (sureIsBetter ? 100 + shiftPercent : 100 - shiftPercent)) / 1000,
      );
    if (sureUnits <= 0 || sureUnits >= stakeUnits) continue;
    if (100 * Math.abs(sureUnits - gambleExpected) < 15 * gambleExpected) continue;
    if (sureUnits > gambleExpected !== sureIsBetter) continue;
    const sureId = tokens.next('plan');
    const gambleId = tokens.next('plan');
    const order = <T>(sure: T, gamble: T): [T, T] => (sureFirst ? [sure, gamble] : [gamble, sure]);
    const positive: FramedChoiceFacts = {
      kind: 'framed-choice',
      frame: 'positive',
      stakeUnits,
      measure: 'kept',
      options: order(
        { id: sureId, kind: 'sure', units: sureUnits },
        {
          id: gambleId,
          kind: 'gamble',
          probabilityPercent,
          unitsWithProbability: stakeUnits,
          unitsOtherwise: 0,
        },
      ),
    };
    const negative: FramedChoiceFacts = {
      kind: 'framed-choice',
      frame: 'negative',
      stakeUnits,
      measure: 'lost',
      options: order(
        { id: sureId, kind: 'sure', units: stakeUnits - sureUnits },
        {
          id: gambleId,
          kind: 'gamble',
          probabilityPercent,
          unitsWithProbability: 0,
          unitsOtherwise: stakeUnits,
        },
      ),
    };
    return { positive, negative, expected: sureIsBetter ? sureId : gambleId };
  }
}

// ---------------------------------------------------------------------------------------------
// I: a decision that needs several records and every constraint

interface AttributeSpec {
  readonly attribute: string;
  readonly comparison: SelectionConstraint['comparison'];
  /** Draws a limit, then a value that satisfies it and one that violates it (never equal to it). */
  readonly limit: (random: SeededRandom) => number;
  readonly satisfying: (random: SeededRandom, limit: number) => number;
  readonly violating: (random: SeededRandom, limit: number) => number;
}

const CONSTRAINABLE: readonly AttributeSpec[] = [
  {
    attribute: 'costCredits',
    comparison: 'at-most',
    limit: (random) => 10 * random.int(15, 40),
    satisfying: (random, limit) => random.int(Math.ceil(limit / 2), limit - 5),
    violating: (random, limit) => random.int(limit + 10, Math.floor(limit * 1.5)),
  },
  {
    attribute: 'leadTimeDays',
    comparison: 'at-most',
    limit: (random) => random.int(5, 14),
    satisfying: (random, limit) => random.int(1, limit - 1),
    violating: (random, limit) => random.int(limit + 1, limit + 10),
  },
  {
    attribute: 'capacityUnits',
    comparison: 'at-least',
    limit: (random) => 10 * random.int(4, 12),
    satisfying: (random, limit) => random.int(limit + 5, 2 * limit),
    violating: (random, limit) => random.int(Math.ceil(limit / 3), limit - 5),
  },
  {
    attribute: 'distanceKm',
    comparison: 'at-most',
    limit: (random) => 50 * random.int(4, 12),
    satisfying: (random, limit) => random.int(Math.ceil(limit / 4), limit - 10),
    violating: (random, limit) => random.int(limit + 10, 2 * limit),
  },
];
const OBJECTIVE_ATTRIBUTE = 'ratingPoints';
const CONSTRAINTS_PER_ITEM = 3;

/**
 * Five candidates: the answer W; one decoy per constraint that is rated above W and violates
 * only that constraint (so ignoring any single constraint picks a decoy); and a filler that
 * satisfies everything but is rated below W. Each attribute comes in its own record (with its own
 * source, candidates in shuffled order), plus one record of an attribute no constraint mentions.
 */
function constrainedSelection(
  random: SeededRandom,
  tokens: TokenPool,
): { facts: ConstrainedSelectionFacts; expected: string } {
  const chosen = random.sampleDistinct(CONSTRAINABLE.length, CONSTRAINTS_PER_ITEM + 1);
  const constrained = chosen
    .slice(0, CONSTRAINTS_PER_ITEM)
    .map((index) => CONSTRAINABLE[index] as AttributeSpec);
  const unconstrained = CONSTRAINABLE[chosen[CONSTRAINTS_PER_ITEM] as number] as AttributeSpec;
  const answer = tokens.next('opt');
  const decoys = constrained.map(() => tokens.next('opt'));
  const filler = tokens.next('opt');
  const candidates = random.shuffle([answer, ...decoys, filler]);

  const ratings = random
    .sampleDistinct(60, CONSTRAINTS_PER_ITEM + 2)
    .map((offset) => 40 + offset)
    .sort((left, right) => right - left);
  const rating = new Map<string, number>();
  for (const [index, decoy] of random.shuffle([...decoys]).entries()) {
    rating.set(decoy, ratings[index] as number);
  }
  rating.set(answer, ratings[CONSTRAINTS_PER_ITEM] as number);
  rating.set(filler, ratings[CONSTRAINTS_PER_ITEM + 1] as number);

  const constraints: SelectionConstraint[] = [];
  const records: ConstrainedSelectionFacts['records'] = [];
  const recordOf = (attribute: string, valueFor: (candidate: string) => number) => ({
    id: tokens.next('rec'),
    source: tokens.next('src'),
    attribute,
    values: random
      .shuffle([...candidates])
      .map((candidate) => ({ candidate, value: valueFor(candidate) })),
  });
  constrained.forEach((spec, index) => {
    const limit = spec.limit(random);
    const symbol = spec.comparison === 'at-most' ? '<=' : '>=';
    constraints.push({
      id: `${spec.attribute}${symbol}${limit}`,
      attribute: spec.attribute,
      comparison: spec.comparison,
      limit,
    });
    records.push(
      recordOf(spec.attribute, (candidate) =>
        candidate === decoys[index]
          ? spec.violating(random, limit)
          : spec.satisfying(random, limit),
      ),
    );
  });
  const irrelevantLimit = unconstrained.limit(random);
  records.push(
    recordOf(unconstrained.attribute, () =>
      random.chance(1, 2)
        ? unconstrained.satisfying(random, irrelevantLimit)
        : unconstrained.violating(random, irrelevantLimit),
    ),
  );
  records.push(recordOf(OBJECTIVE_ATTRIBUTE, (candidate) => rating.get(candidate) as number));
  return {
    facts: {
      kind: 'constrained-selection',
      candidates,
      records: random.shuffle(records),
      constraints: random.shuffle(constraints),
      objective: { attribute: OBJECTIVE_ATTRIBUTE, direction: 'maximize' },
    },
    expected: answer,
  };
}

// ---------------------------------------------------------------------------------------------
// The registered set

const ITEM_ID_TOKEN_LENGTH = 6;
const HALVES: readonly Half[] = [1, 2];

function exactDraft(
  half: Half,
  facts: SymbolRewriteFacts | CounterfactualOperatorFacts,
  expected: string,
): Draft {
  return {
    axis: 'R',
    half,
    pairId: null,
    frame: null,
    options: null,
    facts,
    expected,
    constraints: [],
  };
}

function draftItems(random: SeededRandom, tokens: TokenPool): Draft[] {
  const drafts: Draft[] = [];
  for (const half of HALVES) {
    for (let index = 0; index < 2; index++) {
      const facts = symbolRewrite(random);
      drafts.push(exactDraft(half, facts, rewriteSymbols(facts, facts.steps)));
    }
    for (let index = 0; index < 2; index++) {
      const facts = counterfactualOperator(random);
      const [x, y, z] = facts.operands;
      const value =
        facts.grouping === 'left'
          ? applyOperator(facts.operator, applyOperator(facts.operator, x, y), z)
          : applyOperator(facts.operator, x, applyOperator(facts.operator, y, z));
      drafts.push(exactDraft(half, facts, String(value)));
    }
  }

  // C: each half gets one item where inspecting is right and one where committing now is right
  // (once because the information is unaffordable, once because it is not worth its cost).
  const commitCases = random.shuffle<InformationCase>(['unaffordable', 'not-worthwhile']);
  for (const half of HALVES) {
    for (const which of random.shuffle<InformationCase>([
      'inspect',
      commitCases[half - 1] as InformationCase,
    ])) {
      const facts = informationGap(random, tokens, which);
      const likelier = facts.candidates.reduce((best, candidate) =>
        candidate.workingProbabilityPercent > best.workingProbabilityPercent ? candidate : best,
      );
      drafts.push({
        axis: 'C',
        half,
        pairId: null,
        frame: null,
        options: random.shuffle([
          facts.informationAction,
          ...facts.candidates.map((candidate) => candidate.id),
        ]),
        facts,
        expected: which === 'inspect' ? facts.informationAction : likelier.id,
        constraints: [],
      });
    }
  }

  // A: four pairs. Crossing "positive frame in half 1" with "sure option better" gives each of
  // the four combinations once; the option order (sure first or not) is 2/2. Both frames of a
  // pair keep the same option IDs in the same order, and go to different halves.
  const design = random.shuffle([
    { positiveHalf: 1 as Half, sureIsBetter: true },
    { positiveHalf: 1 as Half, sureIsBetter: false },
    { positiveHalf: 2 as Half, sureIsBetter: true },
    { positiveHalf: 2 as Half, sureIsBetter: false },
  ]);
  const sureFirst = random.shuffle([true, true, false, false]);
  design.forEach((cell, index) => {
    const pairId = tokens.next('pair');
    const pair = framedPair(random, tokens, cell.sureIsBetter, sureFirst[index] as boolean);
    for (const facts of [pair.positive, pair.negative]) {
      const half: Half =
        facts.frame === 'positive' ? cell.positiveHalf : cell.positiveHalf === 1 ? 2 : 1;
      drafts.push({
        axis: 'A',
        half,
        pairId,
        frame: facts.frame,
        options: facts.options.map((option) => option.id),
        facts,
        expected: pair.expected,
        constraints: [],
      });
    }
  });

  for (const half of HALVES) {
    for (let index = 0; index < 2; index++) {
      const { facts, expected } = constrainedSelection(random, tokens);
      drafts.push({
        axis: 'I',
        half,
        pairId: null,
        frame: null,
        options: [...facts.candidates],
        facts,
        expected,
        constraints: facts.constraints.map((constraint) => constraint.id),
      });
    }
  }
  return drafts;
}

/**
 * Generates the 24 registered behavioral items of one world and their answer key, in two
 * fresh-context halves of 12 (4 R, 2 C, 4 A, 2 I each), items in a seeded random order within
 * each half (`position`), with opaque IDs:
 * - R: 2 symbol-rewrite and 2 counterfactual-operator tasks per half, each with one exact answer;
 * - C: a goal, a budget, a cost of information and a gap; one half-item where seeking the
 *   information is right and one where committing now is (unaffordable or not worth its cost);
 * - A: four expected-value pairs (sure option vs gamble, one strictly better); the positive and
 *   negative frame of a pair go to different halves, counterbalanced 2/2, with fixed option
 *   IDs and order within the pair;
 * - I: five candidates, five records, three declared constraints, every one of them binding.
 *
 * Items carry machine-readable `facts` (see `@chi/spec`'s `BehavioralFactsSchema`), and
 * {@link solveBehavioralItem} recomputes every `expected` answer from the facts alone. The key is
 * index-aligned with `items`. No prompt wording is included: the pilot renders it.
 *
 * @example
 * ```ts
 * const set = generateBehavioralItems({ seed: deriveSeed(20260901, 'world', 17) });
 * set.items.filter((item) => item.half === 1).length; // 12
 * set.key.find((entry) => entry.axis === 'I')?.constraints; // e.g. ['costCredits<=250', ...]
 * ```
 */
export function generateBehavioralItems(options: BehavioralItemsOptions): BehavioralItemSet {
  assertSeedArgument('seed', options.seed);
  const random = createRandom(deriveSeed(options.seed, 'behavioral-items'));
  const tokens = new TokenPool(random);
  const drafts = draftItems(random, tokens);

  const items: BehavioralItem[] = [];
  const key: BehavioralKey[] = [];
  for (const half of HALVES) {
    const ordered = random.shuffle(drafts.filter((draft) => draft.half === half));
    ordered.forEach((draft, position) => {
      const id = tokens.next('item', ITEM_ID_TOKEN_LENGTH);
      items.push({
        id,
        axis: draft.axis,
        half,
        position,
        pairId: draft.pairId,
        frame: draft.frame,
        answerFormat: draft.options === null ? 'exact' : 'choice',
        options: draft.options,
        facts: draft.facts,
      });
      key.push({
        itemId: id,
        axis: draft.axis,
        half,
        pairId: draft.pairId,
        frame: draft.frame,
        expected: draft.expected,
        constraints: draft.constraints,
      });
    });
  }
  return { kind: 'behavioral-items', generator: generatorInfo(), seed: options.seed, items, key };
}
