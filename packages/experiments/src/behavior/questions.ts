import { type PromptTemplate, promptSections, renderTemplate } from '@chi/experiment';
import { type BehavioralItem, InvalidArgumentError } from '@chi/spec';
import type { BehavioralFacts } from '@chi/spec/internal';

/**
 * The sections of `behavior-questions@<v>.txt` ({@link promptSections}: `[name]` header lines,
 * each followed by one template). The file is hashed as a whole like every other template.
 */
export function behaviorQuestionSections(
  template: PromptTemplate,
): ReadonlyMap<string, PromptTemplate> {
  return promptSections(template);
}

function section(sections: ReadonlyMap<string, PromptTemplate>, name: string): PromptTemplate {
  const found = sections.get(name);
  if (found === undefined)
    throw new InvalidArgumentError(
      'behavior-questions',
      `expected a [${name}] section, found none`,
    );
  return found;
}

const list = (parts: readonly string[]) => parts.join('; ');

type Sections = ReadonlyMap<string, PromptTemplate>;
type FactsOf<Kind extends BehavioralFacts['kind']> = Extract<BehavioralFacts, { kind: Kind }>;

function informationGapQuestion(
  sections: Sections,
  facts: FactsOf<'information-gap'>,
  options: readonly string[] | null,
): string {
  return renderTemplate(section(sections, 'information-gap'), {
    REWARD: String(facts.goal.rewardCredits),
    CANDIDATES: list(
      facts.candidates.map(
        (candidate) =>
          `candidate ${candidate.id} works with probability ${candidate.workingProbabilityPercent}%`,
      ),
    ),
    BUDGET: String(facts.budgetCredits),
    ACTION: facts.informationAction,
    COST: String(facts.informationCostCredits),
    OPTIONS: list(
      (
        options ?? [...facts.candidates.map((candidate) => candidate.id), facts.informationAction]
      ).map((option) =>
        option === facts.informationAction
          ? `${option} (take the action "${option}" first)`
          : `${option} (commit to candidate ${option} now)`,
      ),
    ),
  });
}

function framedChoiceQuestion(sections: Sections, facts: FactsOf<'framed-choice'>): string {
  const measure = facts.measure;
  const options = facts.options.map((option) =>
    option.kind === 'sure'
      ? renderTemplate(section(sections, `sure-${measure}`), {
          ID: option.id,
          UNITS: String(option.units),
        })
      : renderTemplate(section(sections, `gamble-${measure}`), {
          ID: option.id,
          PERCENT: String(option.probabilityPercent),
          UNITS_WITH: String(option.unitsWithProbability),
          UNITS_OTHERWISE: String(option.unitsOtherwise),
        }),
  );
  return renderTemplate(section(sections, `framed-choice-${measure}`), {
    STAKE: String(facts.stakeUnits),
    OPTIONS: options.join(' '),
  });
}

function constrainedSelectionQuestion(
  sections: Sections,
  facts: FactsOf<'constrained-selection'>,
): string {
  return renderTemplate(section(sections, 'constrained-selection'), {
    CANDIDATES: facts.candidates.join(', '),
    RECORDS: list(
      facts.records.map(
        (record) =>
          `record ${record.id} (source ${record.source}) gives ${record.attribute}: ${record.values
            .map((entry) => `${entry.candidate} = ${entry.value}`)
            .join(', ')}`,
      ),
    ),
    CONSTRAINTS: list(
      facts.constraints.map(
        (constraint) =>
          `${constraint.attribute} ${constraint.comparison === 'at-most' ? 'at most' : 'at least'} ${constraint.limit}`,
      ),
    ),
    DIRECTION: facts.objective.direction === 'maximize' ? 'highest' : 'lowest',
    OBJECTIVE: facts.objective.attribute,
  });
}

/** The English question of one behavioral item, rendered from its facts with the sections. */
export function renderBehaviorQuestion(
  sections: Sections,
  item: Pick<BehavioralItem, 'facts' | 'options'>,
): string {
  const facts: BehavioralFacts = item.facts;
  switch (facts.kind) {
    case 'symbol-rewrite':
      return renderTemplate(section(sections, 'symbol-rewrite'), {
        START: facts.start,
        RULES: list(facts.rules.map((rule) => `${rule.from} → ${rule.to}`)),
        STEPS: String(facts.steps),
      });
    case 'counterfactual-operator': {
      const [x, y, z] = facts.operands;
      return renderTemplate(section(sections, 'counterfactual-operator'), {
        LEFT: String(facts.operator.leftCoefficient),
        RIGHT: String(facts.operator.rightCoefficient),
        CONSTANT: String(facts.operator.constant),
        EXPRESSION: facts.grouping === 'left' ? `(${x} ∘ ${y}) ∘ ${z}` : `${x} ∘ (${y} ∘ ${z})`,
      });
    }
    case 'information-gap':
      return informationGapQuestion(sections, facts, item.options);
    case 'framed-choice':
      return framedChoiceQuestion(sections, facts);
    case 'constrained-selection':
      return constrainedSelectionQuestion(sections, facts);
  }
}

/**
 * An item as the ITEMS block shows it: what a participant sees, its ID, its options (null for an
 * exact-answer item) and its English question. Never its facts, axis, frame, pair, half or key:
 * the framework asks for choices "without mood labels in the prompt".
 */
export function itemView(sections: ReadonlyMap<string, PromptTemplate>, item: BehavioralItem) {
  return {
    id: item.id,
    options: item.options,
    question: renderBehaviorQuestion(sections, item),
  };
}
