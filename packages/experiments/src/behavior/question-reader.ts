import type { PromptTemplate } from '@chi/experiment';
import type { BehavioralFacts, FramedChoiceFacts } from '@chi/spec/internal';

/**
 * Reads a behavioral question back into its facts, from the English wording alone, the way a
 * participant would: the scripted reference systems use it, because a prompt carries only what a
 * participant sees (never the generator's facts). Each `[section]` of the registered
 * `behavior-questions` template becomes a pattern whose placeholders capture the values; the
 * first section that matches the whole question decides the task. Returns null for a question no
 * section matches.
 */
export function readBehaviorQuestion(
  sections: ReadonlyMap<string, PromptTemplate>,
  question: string,
): BehavioralFacts | null {
  const read = (name: string) => {
    const template = sections.get(name);
    return template === undefined ? null : matchTemplate(template, question);
  };
  const rewrite = read('symbol-rewrite');
  if (rewrite !== null) return symbolRewrite(rewrite);
  const operator = read('counterfactual-operator');
  if (operator !== null) return counterfactualOperator(operator);
  const gap = read('information-gap');
  if (gap !== null) return informationGap(gap);
  const framed = read('framed-choice-kept') ?? read('framed-choice-lost');
  if (framed !== null) return framedChoice(sections, framed);
  const selection = read('constrained-selection');
  if (selection !== null) return constrainedSelection(selection);
  return null;
}

type Captures = Readonly<Record<string, string>>;

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Matches a whole text against a template, capturing each placeholder lazily; null on no match. */
export function matchTemplate(template: PromptTemplate, text: string): Captures | null {
  const seen = new Set<string>();
  const pattern = template.text
    .split(/(\{\{[A-Z][A-Z0-9_]*\}\})/)
    .map((part) => {
      const name = /^\{\{([A-Z][A-Z0-9_]*)\}\}$/.exec(part)?.[1];
      if (name === undefined) return escapeRegExp(part);
      if (seen.has(name)) return `\\k<${name}>`;
      seen.add(name);
      return `(?<${name}>[\\s\\S]*?)`;
    })
    .join('');
  const match = new RegExp(`^${pattern}$`).exec(text);
  return match?.groups === undefined ? (match === null ? null : {}) : { ...match.groups };
}

const integer = (text: string | undefined) => {
  if (text === undefined || !/^-?[0-9]+$/.test(text.trim())) return Number.NaN;
  return Number(text.trim());
};

const parts = (text: string | undefined, separator: string) =>
  (text ?? '').split(separator).map((part) => part.trim());

function symbolRewrite(captures: Captures): BehavioralFacts {
  const rules = parts(captures.RULES, ';').map((rule) => {
    const [from = '', to = ''] = rule.split('→').map((side) => side.trim());
    return { from, to };
  });
  return {
    kind: 'symbol-rewrite',
    symbols: rules.map((rule) => rule.from),
    rules,
    start: captures.START ?? '',
    steps: integer(captures.STEPS),
  };
}

function counterfactualOperator(captures: Captures): BehavioralFacts {
  const expression = captures.EXPRESSION ?? '';
  const operands = (expression.match(/-?[0-9]+/g) ?? []).map(Number);
  return {
    kind: 'counterfactual-operator',
    operator: {
      leftCoefficient: integer(captures.LEFT),
      rightCoefficient: integer(captures.RIGHT),
      constant: integer(captures.CONSTANT),
    },
    operands: [operands[0] ?? Number.NaN, operands[1] ?? Number.NaN, operands[2] ?? Number.NaN],
    grouping: expression.trimStart().startsWith('(') ? 'left' : 'right',
  };
}

function informationGap(captures: Captures): BehavioralFacts {
  const candidates = [
    ...(captures.CANDIDATES ?? '').matchAll(/candidate (\S+) works with probability (\d+)%/g),
  ].map((match) => ({ id: match[1] ?? '', workingProbabilityPercent: Number(match[2]) }));
  return {
    kind: 'information-gap',
    goal: { rewardCredits: integer(captures.REWARD) },
    budgetCredits: integer(captures.BUDGET),
    informationCostCredits: integer(captures.COST),
    informationAction: captures.ACTION ?? '',
    candidates,
  };
}

function framedChoice(
  sections: ReadonlyMap<string, PromptTemplate>,
  captures: Captures,
): BehavioralFacts | null {
  let measure: FramedChoiceFacts['measure'] | null = null;
  const options: FramedChoiceFacts['options'][number][] = [];
  for (const text of (captures.OPTIONS ?? '').split(/ (?=Option )/)) {
    let read = false;
    for (const candidate of ['kept', 'lost'] as const) {
      const sure = sections.get(`sure-${candidate}`);
      const gamble = sections.get(`gamble-${candidate}`);
      const sureMatch = sure === undefined ? null : matchTemplate(sure, text.trim());
      const gambleMatch = gamble === undefined ? null : matchTemplate(gamble, text.trim());
      if (sureMatch !== null) {
        options.push({ id: sureMatch.ID ?? '', kind: 'sure', units: integer(sureMatch.UNITS) });
      } else if (gambleMatch !== null) {
        options.push({
          id: gambleMatch.ID ?? '',
          kind: 'gamble',
          probabilityPercent: integer(gambleMatch.PERCENT),
          unitsWithProbability: integer(gambleMatch.UNITS_WITH),
          unitsOtherwise: integer(gambleMatch.UNITS_OTHERWISE),
        });
      } else continue;
      measure = candidate;
      read = true;
      break;
    }
    if (!read) return null;
  }
  if (measure === null) return null;
  return {
    kind: 'framed-choice',
    // what the wording shows: units kept is the positive frame, units lost the negative one
    frame: measure === 'kept' ? 'positive' : 'negative',
    stakeUnits: integer(captures.STAKE),
    measure,
    options,
  };
}

function constrainedSelection(captures: Captures): BehavioralFacts {
  const records = [
    ...(captures.RECORDS ?? '').matchAll(/record (\S+) \(source (\S+)\) gives (\S+): ([^;]*)/g),
  ].map((match) => ({
    id: match[1] ?? '',
    source: match[2] ?? '',
    attribute: match[3] ?? '',
    values: parts(match[4], ',').map((entry) => {
      const [candidate = '', value] = entry.split('=').map((side) => side.trim());
      return { candidate, value: integer(value) };
    }),
  }));
  const constraints = parts(captures.CONSTRAINTS, ';').map((text) => {
    const [, attribute = '', comparison = '', limit = ''] =
      /^(\S+) (at most|at least) (-?[0-9]+)$/.exec(text) ?? [];
    const atMost = comparison === 'at most';
    return {
      id: `${attribute}${atMost ? '<=' : '>='}${limit}`,
      attribute,
      comparison: atMost ? ('at-most' as const) : ('at-least' as const),
      limit: integer(limit),
    };
  });
  return {
    kind: 'constrained-selection',
    candidates: parts(captures.CANDIDATES, ','),
    records,
    constraints,
    objective: {
      attribute: (captures.OBJECTIVE ?? '').trim(),
      direction: captures.DIRECTION === 'lowest' ? 'minimize' : 'maximize',
    },
  };
}
