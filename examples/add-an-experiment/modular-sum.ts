/**
 * An experiment module written outside the monorepo's packages: `x-modular-sum`, a toy rule task
 * (add two numbers modulo 97). It is NOT one of the specification's 30 tests and claims no slot
 * (`partial`); it exists to show the module interface end to end.
 */
import { readFileSync } from 'node:fs';
import {
  defineExperiment,
  type ExperimentPromptTemplate,
  plannedRequest,
  promptSections,
  renderJsonBlock,
  renderTemplate,
  requestNonce,
  requireSection,
  requireTemplate,
} from '@chi/experiment';
import { InvalidArgumentError } from '@chi/spec';
import { z } from 'zod';

/** The task name of its only request kind (added tasks are `x-...`, like added experiment IDs). */
export const TASK = 'x-modular-sum';
const MODULUS = 97;

/** One generated item: the question and its answer key. */
export interface SumItem {
  readonly id: string;
  readonly a: number;
  readonly b: number;
  readonly answer: number;
}

/**
 * The items of one world: a pure function of the world seed (a small linear congruential
 * sequence), so the same seed always gives the same items and no world file is needed.
 */
export function sumItems(worldSeed: number, count: number): SumItem[] {
  let state = worldSeed >>> 0;
  const next = () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state % 1000;
  };
  return Array.from({ length: count }, (_, k) => {
    const a = next();
    const b = next();
    return { id: `q${k + 1}`, a, b, answer: (a + b) % MODULUS };
  });
}

/**
 * The module's own prompt template, `prompts/x-modular-sum@1.txt` (sections `[system]` and
 * `[user]`). A run that includes the module freezes it into the run folder's `prompts/` and
 * `manifest.prompts`; `render` fills the run's frozen copy, so a resume renders the same bytes and
 * refuses an edited copy (exit 5 at the command line, `RunFolderDamagedError` naming the file).
 * Change the text only with a new version (`x-modular-sum@2.txt`).
 */
export const MODULAR_SUM_TEMPLATE: ExperimentPromptTemplate = {
  name: 'x-modular-sum',
  version: '1',
  text: readFileSync(new URL('./prompts/x-modular-sum@1.txt', import.meta.url), 'utf8'),
  sections: ['system', 'user'],
};

const Params = z.strictObject({ items: z.int().min(1).max(50) });
type Params = z.infer<typeof Params>;

export const modularSumExperiment = defineExperiment<Params>({
  specificationVersion: 'chi-experiment-v1',
  id: 'x-modular-sum',
  title: 'Modular sums (an example module, not a panel test)',
  slots: [
    { axis: 'R', coverage: 'partial', what: 'exact answers to a stated rule (a + b mod 97)' },
  ],
  procedure: 'One fresh-context request per world with every item; no notebook.',
  taskScore: 'Share of items whose integer answer equals (a + b) mod 97.',
  features: [
    {
      id: 'x-modular-sum-accuracy',
      version: 1,
      features: ['accuracy'],
      coding: 'Correct items / items; a missing or non-integer answer is wrong.',
      schema: z.strictObject({ accuracy: z.number().min(0).max(1) }),
    },
  ],
  control: 'None: an example module. A real module states its control condition here.',
  seedPassages: [
    {
      source: 'framework',
      quote: 'Each states a procedure, task score, behavioral features and a control condition.',
    },
  ],
  parameters: Params,
  kinds: ['x-modular-sum'],
  tasks: [TASK],
  promptTemplates: [MODULAR_SUM_TEMPLATE],
  parametersFrom: () => ({ items: 6 }),
  parametersOf: (manifest) => {
    const raw = manifest.experiments.added?.['x-modular-sum'];
    return raw === undefined ? null : Params.parse(raw);
  },
  plan: ({ worldSeed }) => {
    const unit = `x-modular-sum.w${worldSeed}`;
    return [
      {
        block: { blockId: unit, experiment: 'x-modular-sum', worldSeed, load: null },
        requestsFor: (systemId) => [
          plannedRequest({
            requestId: `${systemId}.${unit}.all`,
            systemId,
            blockId: unit,
            experiment: 'x-modular-sum',
            task: TASK,
            step: 'all',
            worldSeed,
            dependsOn: [],
            writesNotebook: false,
            nonce: requestNonce(worldSeed, unit, 'all'),
          }),
        ],
      },
    ];
  },
  render: ({ request, params, prompts }) => {
    if (request.task !== TASK)
      throw new InvalidArgumentError('request', `x-modular-sum cannot render ${request.task}`);
    const questions = sumItems(request.worldSeed, params.items).map(({ id, a, b }) => ({
      id,
      a,
      b,
    }));
    // the run's copy of the template (frozen in the run folder), not MODULAR_SUM_TEMPLATE.text
    const template = requireTemplate(prompts, MODULAR_SUM_TEMPLATE.name);
    const sections = promptSections(template);
    return {
      task: TASK,
      template: { name: template.name, version: template.version },
      messages: [
        { role: 'system', content: renderTemplate(requireSection(sections, 'system'), {}) },
        {
          role: 'user',
          content: renderTemplate(requireSection(sections, 'user'), {
            REQUEST_BLOCK: renderJsonBlock('REQUEST', { task: TASK, nonce: request.nonce }),
            MODULUS: String(MODULUS),
            QUESTIONS_BLOCK: renderJsonBlock('QUESTIONS', questions),
          }),
        },
      ],
    };
  },
});
