import {
  defineExperiment,
  type ParameterFlag,
  type PromptSet,
  type PromptTemplate,
  plannedRequest,
  promptSections,
  type RenderedMessages,
  renderJsonBlock,
  renderTemplate,
  requestNonce,
  requireSection,
  requireTemplate,
} from '@chi/experiment';
import { InvalidArgumentError, type PlannedRequest, type RequestTask } from '@chi/spec';
import { type FeedbackValenceParams, FeedbackValenceParamsSchema } from '@chi/spec/internal';
import {
  type FeedbackValenceWorld,
  generateFeedbackValenceWorld,
  type ValenceChoice,
  type ValenceTrial,
} from '@chi/worlds';
import { FEEDBACK_VALENCE_GENERATOR } from '@chi/worlds/internal';
import { z } from 'zod';
import type { BuiltInHost } from '../built-in-experiment';
import { integerOption } from '../options';
import { VALENCE_CHOICE_PROMPT, VALENCE_FEEDBACK_PROMPT } from './prompts';

/** Later choices per trial in a run. */
export const VALENCE_CHOICES = 4;

const shift = z.number().min(-1).max(1).nullable();
const rate = z.number().min(0).max(1).nullable();

function blockIdOf(worldSeed: number, trial: ValenceTrial): string {
  return `feedback-valence.w${worldSeed}.${trial.trial}`;
}

function trialRequests(worldSeed: number, trial: ValenceTrial, systemId: string): PlannedRequest[] {
  const blockId = blockIdOf(worldSeed, trial);
  const feedbackId = `${systemId}.${blockId}.feedback`;
  const common = { systemId, blockId, experiment: 'feedback-valence' as const, worldSeed };
  return [
    plannedRequest({
      ...common,
      requestId: feedbackId,
      task: 'valence_feedback',
      step: `${trial.trial}.feedback`,
      dependsOn: [],
      writesNotebook: true,
      nonce: requestNonce(worldSeed, blockId, 'feedback'),
    }),
    plannedRequest({
      ...common,
      requestId: `${systemId}.${blockId}.choice`,
      task: 'valence_choice',
      step: `${trial.trial}.choice`,
      dependsOn: [feedbackId],
      writesNotebook: false,
      nonce: requestNonce(worldSeed, blockId, 'choice'),
    }),
  ];
}

function trialOf(world: FeedbackValenceWorld, request: PlannedRequest): ValenceTrial {
  const name = request.step.split('.')[0];
  const trial = world.trials.find((candidate) => candidate.trial === name);
  if (trial === undefined)
    throw new InvalidArgumentError('request', `${request.requestId}: no trial ${request.step}`);
  return trial;
}

/** The template of the review request (declared in ./prompts.ts). */
export const VALENCE_FEEDBACK_TEMPLATE = VALENCE_FEEDBACK_PROMPT.name;
/** The template of the later-choice request (declared in ./prompts.ts). */
export const VALENCE_CHOICE_TEMPLATE = VALENCE_CHOICE_PROMPT.name;

/** The options of a choice as the prompt shows them (the gamble's letter is seeded). */
function choiceView(
  sections: ReadonlyMap<string, PromptTemplate>,
  choice: ValenceChoice,
): { id: string; a: string; b: string } {
  const sure = renderTemplate(requireSection(sections, 'sure'), { POINTS: String(choice.sure) });
  const gamble = renderTemplate(requireSection(sections, 'gamble'), {
    POINTS: String(choice.gamble),
  });
  return choice.gambleOption === 'a'
    ? { id: choice.id, a: gamble, b: sure }
    : { id: choice.id, a: sure, b: gamble };
}

/** The two messages of a sectioned template (`[system]`, `[user]`), with the user values. */
function renderSectioned(
  template: PromptTemplate,
  task: RequestTask,
  sections: ReadonlyMap<string, PromptTemplate>,
  values: Readonly<Record<string, string>>,
): RenderedMessages {
  return {
    task,
    template: { name: template.name, version: template.version },
    messages: [
      { role: 'system', content: renderTemplate(requireSection(sections, 'system'), {}) },
      { role: 'user', content: renderTemplate(requireSection(sections, 'user'), values) },
    ],
  };
}

/**
 * The feedback prompt, from the run's frozen `valence-feedback` template: the review of earlier
 * work; the whole reply becomes the notebook.
 */
export function renderValenceFeedback(
  prompts: PromptSet,
  args: { world: FeedbackValenceWorld; trial: ValenceTrial; nonce: string },
): RenderedMessages {
  const template = requireTemplate(prompts, VALENCE_FEEDBACK_TEMPLATE);
  return renderSectioned(template, 'valence_feedback', promptSections(template), {
    REQUEST_BLOCK: renderJsonBlock('REQUEST', { task: 'valence_feedback', nonce: args.nonce }),
    WORK: args.world.work,
    REVIEWER: args.world.reviewer,
    REVIEW_BLOCK: renderJsonBlock('REVIEW', {
      from: args.world.reviewer,
      text: args.trial.feedback,
    }),
  });
}

/**
 * The later-choice prompt, from the run's frozen `valence-choice` template: the notes and the
 * choices, no review and no mood label.
 */
export function renderValenceChoice(
  prompts: PromptSet,
  args: { world: FeedbackValenceWorld; notes: string; nonce: string },
): RenderedMessages {
  const template = requireTemplate(prompts, VALENCE_CHOICE_TEMPLATE);
  const sections = promptSections(template);
  return renderSectioned(template, 'valence_choice', sections, {
    REQUEST_BLOCK: renderJsonBlock('REQUEST', { task: 'valence_choice', nonce: args.nonce }),
    NOTES_BLOCK: renderJsonBlock('NOTES', { notes: args.notes }),
    CHOICES_BLOCK: renderJsonBlock(
      'CHOICES',
      args.world.choices.map((choice) => choiceView(sections, choice)),
    ),
  });
}

/**
 * Feedback valence and later choices (axis A), opt-in: the same review in three valences with
 * equal informational content, then the same choices in a fresh conversation that sees only the
 * notes. Scored by `feedbackValenceScorer` (./scorer.ts).
 */
export const feedbackValenceExperiment = defineExperiment<FeedbackValenceParams, BuiltInHost>({
  specificationVersion: 'chi-experiment-v1',
  id: 'feedback-valence',
  title: 'Feedback valence and later choices',
  slots: [
    {
      axis: 'A',
      coverage: 'partial',
      what: 'choice shift after praise or criticism relative to neutral feedback of equal content',
    },
  ],
  procedure: `Per world three trials in a seeded order: a review of the same earlier work as praise, criticism or a neutral note, each wrapping the same informational sentence (the system writes notes in reply; the whole reply is its notebook), then a fresh conversation with only those notes and the same ${VALENCE_CHOICES} sure-versus-gamble choices (equal expected points, seeded option order). No prompt names a mood or a condition.`,
  taskScore: 'Share of the later choices answered with a valid option.',
  features: [
    {
      id: 'feedback-valence-shift',
      version: 1,
      features: ['shiftPositive', 'shiftNegative', 'gambleRateNeutral'],
      coding:
        'Per world: gamble rate over the valid choices after each feedback; shiftPositive = rate after praise - rate after neutral feedback, shiftNegative = rate after criticism - rate after neutral feedback (null when either rate is undefined). A shift is not a better or worse score and not an emotion.',
      schema: z.strictObject({
        shiftPositive: shift,
        shiftNegative: shift,
        gambleRateNeutral: rate,
      }),
    },
  ],
  control:
    'Neutral feedback with the same informational sentence, followed by the same choices: every shift is measured against it within the world. The three feedback texts differ only in their valence wrapper (a test checks the shared sentence).',
  seedPassages: [
    {
      source: 'framework',
      quote:
        'An A-axis experiment may present positive, negative or neutral feedback with equal informational content, then test later choices without mood labels in the prompt. A persistent choice shift could reflect state, learned associations, priming or an explicit controller. The experiment measures the shift and its controls; it does not declare that the system felt an emotion.',
    },
  ],
  parameters: FeedbackValenceParamsSchema.extend({
    choices: FeedbackValenceParamsSchema.shape.choices.meta({
      cli: {
        flag: 'valence-choices',
        option: 'valenceChoices',
        kind: 'integer',
        placeholder: 'N',
        help: `feedback-valence later choices per trial, 1-12 (default ${VALENCE_CHOICES}; with --templates feedback-valence)`,
        range: { min: 1, max: 12 },
      } satisfies ParameterFlag,
    }),
  }),
  kinds: ['feedback-valence'],
  tasks: ['valence_feedback', 'valence_choice'],
  parametersFrom: (settings) => ({
    generator: FEEDBACK_VALENCE_GENERATOR,
    choices: integerOption(settings, 'valenceChoices') ?? VALENCE_CHOICES,
  }),
  parametersOf: (manifest) => manifest.experiments['feedback-valence'] ?? null,
  plan: ({ worldSeed, params }) =>
    generateFeedbackValenceWorld(worldSeed, params.choices).trials.map((trial) => ({
      block: {
        blockId: blockIdOf(worldSeed, trial),
        experiment: 'feedback-valence',
        worldSeed,
        load: null,
      },
      requestsFor: (systemId) => trialRequests(worldSeed, trial, systemId),
    })),
  render: ({ request, params, prompts, notes }) => {
    const world = generateFeedbackValenceWorld(request.worldSeed, params.choices);
    const trial = trialOf(world, request);
    if (request.task === 'valence_feedback')
      return renderValenceFeedback(prompts, { world, trial, nonce: request.nonce });
    return renderValenceChoice(prompts, {
      world,
      notes: notes(request.systemId, `feedback-valence|${request.blockId}`),
      nonce: request.nonce,
    });
  },
  promptTemplates: [VALENCE_FEEDBACK_PROMPT, VALENCE_CHOICE_PROMPT],
  notebookKey: (request) => `feedback-valence|${request.blockId}`,
});
