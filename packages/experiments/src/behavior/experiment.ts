import {
  defineExperiment,
  type ParameterFlag,
  plannedRequest,
  requestNonce,
} from '@chi/experiment';
import { InvalidArgumentError } from '@chi/spec';
import { type BehaviorExperimentParams, BehaviorExperimentParamsSchema } from '@chi/spec/internal';
import { z } from 'zod';
import type { BuiltInHost } from '../built-in-experiment';
import { BEHAVIOR_PROMPT_TEMPLATES, BEHAVIOR_WORDINGS } from './prompts';
import { renderBehaviorHalf } from './render';

/** The behavioral probes' two independently answered halves. */
const HALVES = [1, 2] as const;

function halfRequest(systemId: string, worldSeed: number, half: 1 | 2, wording: 1 | 2) {
  const unit = `behavior.w${worldSeed}`;
  const step = wording === 1 ? `half${half}` : `half${half}.w${wording}`;
  return plannedRequest({
    requestId: `${systemId}.${unit}.${step}`,
    systemId,
    blockId: unit,
    experiment: 'behavior',
    task: 'behavior_half',
    step,
    worldSeed,
    half,
    ...(wording === 1 ? {} : { wording }),
    dependsOn: [],
    writesNotebook: false,
    nonce: requestNonce(worldSeed, unit, step),
  });
}

const rate = z.number().min(0).max(1).nullable();

/**
 * The pilot's other behavioral probes: 24 registered items per world in two fresh-context halves
 * (R, C, A, I task indicators). No notebook.
 */
export const behaviorExperiment = defineExperiment<BehaviorExperimentParams, BuiltInHost>({
  specificationVersion: 'chi-experiment-v1',
  id: 'behavior',
  title: 'Other behavioral probes (R, C, A, I task indicators)',
  slots: [
    {
      axis: 'R',
      coverage: 'partial',
      what: 'eight symbolic-rule/counterfactual exact-answer tasks',
    },
    {
      axis: 'C',
      coverage: 'partial',
      what: 'four next-action choices with an explicit goal, budget and information gap',
    },
    {
      axis: 'A',
      coverage: 'partial',
      what: 'eight matched positive/negative frames of four expected-value choices',
    },
    {
      axis: 'I',
      coverage: 'partial',
      what: 'four decisions combining supplied records and constraints',
    },
  ],
  procedure:
    'Two independently answered fresh-context halves per world, each with 4 R, 2 C, 4 A and 2 I items; matched A frames go to separate requests with counterbalanced half/order allocation.',
  taskScore:
    'Accuracy per axis over both halves against the generated answer key; I requires all declared constraints.',
  features: [
    {
      id: 'behavior-indicators',
      version: 1,
      features: ['R', 'C', 'A', 'I', 'frameInducedChangeRate'],
      coding:
        'Accuracy per axis over both halves; frame-induced change = share of valid A pairs whose chosen option position differs between frames (neither higher nor lower is better).',
      schema: z.strictObject({ R: rate, C: rate, A: rate, I: rate, frameInducedChangeRate: rate }),
    },
  ],
  control:
    'Matched frames: the same expected-value choice under a positive and a negative frame, so a frame-induced change is measured against the matched pair, not against a label.',
  seedPassages: [
    {
      source: 'protocol',
      quote:
        'Two independently answered fresh-context halves per world together contain 24 registered items: R eight symbolic-rule/counterfactual exact-answer tasks; C four next-action choices with an explicit goal, budget and information gap; A eight matched positive/negative frames of four expected-value choices; I four decisions combining supplied records and constraints.',
    },
    {
      source: 'protocol',
      quote:
        'These are task indicators. C probes information-seeking choice, not self-generated goals or autonomous inner thought. A reports task accuracy and paired frame-induced choice changes, not feelings; stronger framing effects are not a better score.',
    },
  ],
  parameters: BehaviorExperimentParamsSchema.extend({
    wordings: BehaviorExperimentParamsSchema.shape.wordings.meta({
      cli: {
        flag: 'probe-wordings',
        option: 'probeWordings',
        kind: 'switch',
        help: 'also ask every behavioral item under its declared equivalent wording and\nreport per-feature agreement between the wordings',
      } satisfies ParameterFlag,
    }),
  }).meta({
    cli: {
      flag: 'no-behavior',
      option: 'behavior',
      kind: 'negation',
      help: 'without the behavioral probes',
    } satisfies ParameterFlag,
  }),
  kinds: ['behavior'],
  tasks: ['behavior_half'],
  parametersFrom: (settings) =>
    settings.behavior
      ? { items: 24, ...(settings.probeWordings === true ? { wordings: 2 as const } : {}) }
      : null,
  parametersOf: (manifest) => manifest.experiments.behavior,
  plan: ({ worldSeed, params }) => {
    const wordings = params.wordings === 2 ? ([1, 2] as const) : ([1] as const);
    return [
      {
        // Both wordings in one block: a world's wordings are complete together (pairing).
        block: { blockId: `behavior.w${worldSeed}`, experiment: 'behavior', worldSeed, load: null },
        requestsFor: (systemId) =>
          wordings.flatMap((wording) =>
            HALVES.map((half) => halfRequest(systemId, worldSeed, half, wording)),
          ),
      },
    ];
  },
  render: ({ request, worlds, prompts }) => {
    const set = worlds.behavior.get(request.worldSeed);
    if (set === undefined)
      throw new InvalidArgumentError('worlds', `no behavioral items for seed ${request.worldSeed}`);
    return renderBehaviorHalf(prompts, {
      items: set.items.filter((item) => item.half === request.half),
      nonce: request.nonce,
      wording: BEHAVIOR_WORDINGS[(request.wording ?? 1) - 1]?.template ?? 'behavior-questions',
    });
  },
  wordings: BEHAVIOR_WORDINGS,
  promptTemplates: BEHAVIOR_PROMPT_TEMPLATES,
  unusedTemplates: (params) => (params?.wordings === 2 ? [] : ['behavior-questions-w2']),
});
