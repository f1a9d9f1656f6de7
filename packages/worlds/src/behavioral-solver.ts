import { type BehavioralItem, InvalidArgumentError } from '@chi/spec';
import type {
  BehavioralFacts,
  ConstrainedSelectionFacts,
  CounterfactualOperatorFacts,
  FramedChoiceFacts,
  InformationGapFacts,
  SymbolRewriteFacts,
} from '@chi/spec/internal';

/** Parallel rewriting: every symbol replaced by its rule at once, `steps` times. */
export function rewriteSymbols(
  facts: Pick<SymbolRewriteFacts, 'rules' | 'start'>,
  steps: number,
): string {
  const rules = new Map(facts.rules.map((rule) => [rule.from, rule.to]));
  let text = facts.start;
  for (let step = 0; step < steps; step++) {
    let next = '';
    for (const symbol of text) {
      const replacement = rules.get(symbol);
      if (replacement === undefined) {
        throw new InvalidArgumentError(
          'facts.rules',
          `no rule rewrites symbol ${JSON.stringify(symbol)}`,
        );
      }
      next += replacement;
    }
    text = next;
  }
  return text;
}

/** `a ∘ b = leftCoefficient * a + rightCoefficient * b + constant`. */
export function applyOperator(
  operator: CounterfactualOperatorFacts['operator'],
  left: number,
  right: number,
): number {
  return operator.leftCoefficient * left + operator.rightCoefficient * right + operator.constant;
}

function solveOperator(facts: CounterfactualOperatorFacts): string {
  const [x, y, z] = facts.operands;
  const result =
    facts.grouping === 'left'
      ? applyOperator(facts.operator, applyOperator(facts.operator, x, y), z)
      : applyOperator(facts.operator, x, applyOperator(facts.operator, y, z));
  return String(result);
}

function solveInformationGap(facts: InformationGapFacts): string {
  const [first, second] = facts.candidates;
  if (
    first === undefined ||
    second === undefined ||
    first.workingProbabilityPercent === second.workingProbabilityPercent
  ) {
    throw new InvalidArgumentError(
      'facts.candidates',
      'expected two candidates with different probabilities',
    );
  }
  const likelier =
    first.workingProbabilityPercent > second.workingProbabilityPercent ? first : second;
  if (facts.informationCostCredits > facts.budgetCredits) return likelier.id;
  // Expected net credits, times 100 to stay in integers: inspecting always finds the working
  // candidate; committing now succeeds with the likelier candidate's probability.
  const inspect = 100 * (facts.goal.rewardCredits - facts.informationCostCredits);
  const commit = likelier.workingProbabilityPercent * facts.goal.rewardCredits;
  if (inspect === commit) {
    throw new InvalidArgumentError('facts', 'inspecting and committing have equal expected value');
  }
  return inspect > commit ? facts.informationAction : likelier.id;
}

/** Expected units of an option, times 100 (integers: probabilities are whole percents). */
function expectedUnitsTimes100(option: FramedChoiceFacts['options'][number]): number {
  return option.kind === 'sure'
    ? 100 * option.units
    : option.probabilityPercent * option.unitsWithProbability +
        (100 - option.probabilityPercent) * option.unitsOtherwise;
}

function solveFramedChoice(facts: FramedChoiceFacts): string {
  const [first, second] = facts.options;
  if (first === undefined || second === undefined) {
    throw new InvalidArgumentError('facts.options', 'expected two options');
  }
  // Units kept are better high, units lost better low; either way the same final outcome wins.
  const sign = facts.measure === 'kept' ? 1 : -1;
  const difference = sign * (expectedUnitsTimes100(first) - expectedUnitsTimes100(second));
  if (difference === 0)
    throw new InvalidArgumentError('facts.options', 'options have equal expected value');
  return difference > 0 ? first.id : second.id;
}

function solveSelection(facts: ConstrainedSelectionFacts): string {
  const attributeValue = new Map<string, Map<string, number>>();
  for (const record of facts.records) {
    const values = attributeValue.get(record.attribute) ?? new Map<string, number>();
    for (const entry of record.values) values.set(entry.candidate, entry.value);
    attributeValue.set(record.attribute, values);
  }
  const attributeOf = (candidate: string, attribute: string): number => {
    const value = attributeValue.get(attribute)?.get(candidate);
    if (value === undefined) {
      throw new InvalidArgumentError(
        'facts.records',
        `no record gives ${attribute} of candidate ${candidate}`,
      );
    }
    return value;
  };
  const feasible = facts.candidates.filter((candidate) =>
    facts.constraints.every((constraint) => {
      const value = attributeOf(candidate, constraint.attribute);
      return constraint.comparison === 'at-most'
        ? value <= constraint.limit
        : value >= constraint.limit;
    }),
  );
  const sign = facts.objective.direction === 'maximize' ? 1 : -1;
  const ranked = feasible
    .map((candidate) => ({
      candidate,
      score: sign * attributeOf(candidate, facts.objective.attribute),
    }))
    .sort((left, right) => right.score - left.score);
  const best = ranked[0];
  if (best === undefined)
    throw new InvalidArgumentError('facts.constraints', 'no candidate satisfies every constraint');
  if (ranked[1] !== undefined && ranked[1].score === best.score) {
    throw new InvalidArgumentError(
      'facts.objective',
      'two feasible candidates tie on the objective',
    );
  }
  return best.candidate;
}

/**
 * The exact answer to a behavioral item's facts, computed from the facts alone: the scripted
 * reference solution. For every generated item it equals the answer key's `expected` (a test
 * checks this), so a scripted reference system can answer with it and scoring needs no text.
 * Throws `InvalidArgumentError` for facts without a unique answer.
 */
export function solveFacts(facts: BehavioralFacts): string {
  switch (facts.kind) {
    case 'symbol-rewrite':
      return rewriteSymbols(facts, facts.steps);
    case 'counterfactual-operator':
      return solveOperator(facts);
    case 'information-gap':
      return solveInformationGap(facts);
    case 'framed-choice':
      return solveFramedChoice(facts);
    case 'constrained-selection':
      return solveSelection(facts);
  }
}

/**
 * The exact answer to one behavioral item (see `solveFacts`).
 *
 * @example
 * ```ts
 * const set = generateBehavioralItems({ seed: 7 });
 * set.items.every((item, index) => solveBehavioralItem(item) === set.key[index]?.expected); // true
 * ```
 */
export function solveBehavioralItem(item: BehavioralItem): string {
  return solveFacts(item.facts);
}
