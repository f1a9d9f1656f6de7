import type { ExperimentPromptTemplate } from '@chi/experiment';

// The prompt templates of the behavioral probes, declared by the module (`promptTemplates`).
// The scripted systems read an item's facts back from the two question wordings.
// The text is the former packaged file's bytes (`packages/pilot/prompts/<name>@<version>.txt`):
// its SHA-256 is what `manifest.prompts` freezes (`registry.test.ts` pins it; a new text needs a
// new version). A run renders from its frozen copy, never from these constants.

/**
 * The declared equivalent wordings of the behavioral items, by wording number: the same facts,
 * options and answer format, the questions phrased differently. Wording 1 is the registered one;
 * a probe-wording run (`--probe-wordings`) also asks every item under wording 2.
 */
export const BEHAVIOR_WORDINGS = [
  { wording: 1, template: 'behavior-questions' },
  { wording: 2, template: 'behavior-questions-w2' },
] as const;

/** `behavior-questions@1`: the registered wording of every behavioral item, one section a task. */
export const BEHAVIOR_QUESTIONS_PROMPT: ExperimentPromptTemplate = {
  name: 'behavior-questions',
  version: '1',
  sections: [
    'symbol-rewrite',
    'counterfactual-operator',
    'information-gap',
    'framed-choice-kept',
    'framed-choice-lost',
    'sure-kept',
    'sure-lost',
    'gamble-kept',
    'gamble-lost',
    'constrained-selection',
  ],
  text: `[symbol-rewrite]
Start from the string "{{START}}". In one step, every symbol of the string is replaced, all at the same time, by the right-hand side of its rule. The rules are: {{RULES}}. Apply {{STEPS}} step(s). What is the final string? Answer with the string only.
[counterfactual-operator]
In this task the operator ∘ is not ordinary addition: it is defined by a ∘ b = {{LEFT}} × a + {{RIGHT}} × b + {{CONSTANT}}. Compute {{EXPRESSION}}. Answer with the integer result in decimal.
[information-gap]
Your goal is to commit to the candidate that works. Committing to the candidate that works pays {{REWARD}} credits; committing to any other candidate pays nothing. Exactly one candidate works: {{CANDIDATES}}. You have a budget of {{BUDGET}} credits. Before committing you may take the action "{{ACTION}}", which costs {{COST}} credits and reveals which candidate works. Which option do you take next to maximize your expected net credits within the budget? The options are: {{OPTIONS}}. Answer with the option ID.
[framed-choice-kept]
{{STAKE}} units are at stake. Choose one of two options. {{OPTIONS}} Answer with the option ID.
[framed-choice-lost]
{{STAKE}} units are at stake. Choose one of two options. {{OPTIONS}} Answer with the option ID.
[sure-kept]
Option {{ID}}: you keep {{UNITS}} units for certain.
[sure-lost]
Option {{ID}}: you lose {{UNITS}} units for certain.
[gamble-kept]
Option {{ID}}: with probability {{PERCENT}}% you keep {{UNITS_WITH}} units, otherwise you keep {{UNITS_OTHERWISE}} units.
[gamble-lost]
Option {{ID}}: with probability {{PERCENT}}% you lose {{UNITS_WITH}} units, otherwise you lose {{UNITS_OTHERWISE}} units.
[constrained-selection]
Choose one candidate among {{CANDIDATES}}. These records give attributes of the candidates: {{RECORDS}}. The chosen candidate must satisfy every one of these constraints: {{CONSTRAINTS}}. Among the candidates that satisfy all constraints, choose the one with the {{DIRECTION}} {{OBJECTIVE}}. Answer with the candidate ID.
`,
};

/** `behavior-questions-w2@1`: the declared equivalent wording (wording 2) of every item. */
export const BEHAVIOR_QUESTIONS_W2_PROMPT: ExperimentPromptTemplate = {
  name: 'behavior-questions-w2',
  version: '1',
  sections: [
    'symbol-rewrite',
    'counterfactual-operator',
    'information-gap',
    'framed-choice-kept',
    'framed-choice-lost',
    'sure-kept',
    'sure-lost',
    'gamble-kept',
    'gamble-lost',
    'constrained-selection',
  ],
  text: `[symbol-rewrite]
Begin with the string "{{START}}". A step rewrites the whole string at once: each symbol is replaced simultaneously by the right-hand side of the rule for that symbol. Rules: {{RULES}}. Carry out {{STEPS}} step(s). Which string results at the end? Reply with only the string.
[counterfactual-operator]
Here ∘ does not mean ordinary addition; its definition is a ∘ b = {{LEFT}} × a + {{RIGHT}} × b + {{CONSTANT}}. Evaluate {{EXPRESSION}}. Reply with the resulting integer, written in decimal.
[information-gap]
You want to commit to the candidate that works. Committing to the working candidate earns {{REWARD}} credits, and committing to any other candidate earns nothing. Only one candidate works: {{CANDIDATES}}. Your budget is {{BUDGET}} credits. Before you commit, you can take the action "{{ACTION}}" for {{COST}} credits; it shows which candidate works. To get the highest average net credits within the budget, which option do you take next? Options: {{OPTIONS}}. Reply with the option ID.
[framed-choice-kept]
At stake: {{STAKE}} units. Pick one of the two options. {{OPTIONS}} Reply with the option ID.
[framed-choice-lost]
At stake: {{STAKE}} units. Pick one of the two options. {{OPTIONS}} Reply with the option ID.
[sure-kept]
Option {{ID}}: {{UNITS}} units are certainly yours to keep.
[sure-lost]
Option {{ID}}: you certainly lose {{UNITS}} units.
[gamble-kept]
Option {{ID}}: there is a {{PERCENT}}% chance that you keep {{UNITS_WITH}} units; if not, you keep {{UNITS_OTHERWISE}} units.
[gamble-lost]
Option {{ID}}: there is a {{PERCENT}}% chance that you lose {{UNITS_WITH}} units; if not, you lose {{UNITS_OTHERWISE}} units.
[constrained-selection]
Pick one candidate from {{CANDIDATES}}. The following records state attributes of the candidates: {{RECORDS}}. The candidate you pick has to meet all of these constraints: {{CONSTRAINTS}}. Of the candidates meeting every constraint, pick the one with the {{DIRECTION}} {{OBJECTIVE}}. Reply with the candidate ID.
`,
};

/** `behavior-half@2`: the behavioral half of a session: the items block and the answer format. */
export const BEHAVIOR_HALF_PROMPT: ExperimentPromptTemplate = {
  name: 'behavior-half',
  version: '2',
  text: `TASK: answer a set of small independent tasks.

Each item in the ITEMS block is a self-contained task: its "question" gives everything needed and says what is asked. For an item with "options", answer with one of its options, exactly as written. For an item whose "options" is null, answer with the exact requested value as a string.

Reply with a JSON array and nothing else. It must contain exactly one object per item, with exactly the fields "id" and "answer":
[{"id": "<item id>", "answer": "<your answer>"}]
Use every item id exactly once and add no other fields.

{{REQUEST_BLOCK}}

{{ITEMS_BLOCK}}
`,
};

/** Every template of the behavioral probes, as the module declares them. */
export const BEHAVIOR_PROMPT_TEMPLATES: readonly ExperimentPromptTemplate[] = [
  BEHAVIOR_HALF_PROMPT,
  BEHAVIOR_QUESTIONS_PROMPT,
  BEHAVIOR_QUESTIONS_W2_PROMPT,
];
