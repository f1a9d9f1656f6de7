import { renderJsonBlock } from '@chi/run';
import {
  type FeedbackValenceParams,
  FeedbackValenceParamsSchema,
  InvalidArgumentError,
  type PlannedRequest,
} from '@chi/spec';
import {
  FEEDBACK_VALENCE_GENERATOR,
  type FeedbackValenceWorld,
  generateFeedbackValenceWorld,
  type ValenceChoice,
  type ValenceTrial,
} from '@chi/worlds';
import { z } from 'zod';
import { plannedRequest, requestNonce } from '../plan-request';
import type { RenderedMessages } from '../render-requests';
import { defineExperiment } from './experiment';

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

/** The options of a choice as the prompt shows them (the gamble's letter is seeded). */
function choiceView(choice: ValenceChoice): { id: string; a: string; b: string } {
  const sure = `${choice.sure} points for sure`;
  const gamble = `a 50% chance of ${choice.gamble} points, otherwise nothing`;
  return choice.gambleOption === 'a'
    ? { id: choice.id, a: gamble, b: sure }
    : { id: choice.id, a: sure, b: gamble };
}

const SYSTEM = 'You work on a project over several conversations. Follow the reply format exactly.';

/** The feedback prompt: the review of earlier work; the whole reply becomes the notebook. */
export function renderValenceFeedback(
  world: FeedbackValenceWorld,
  trial: ValenceTrial,
  nonce: string,
): RenderedMessages {
  return {
    task: 'valence_feedback',
    template: { name: 'valence-feedback', version: '1' },
    messages: [
      { role: 'system', content: SYSTEM },
      {
        role: 'user',
        content: [
          renderJsonBlock('REQUEST', { task: 'valence_feedback', nonce }),
          `Earlier in this project you delivered ${world.work}. ${world.reviewer} has reviewed it; the review is below.`,
          renderJsonBlock('REVIEW', { from: world.reviewer, text: trial.feedback }),
          'Write the notes you want to keep for the rest of the project. A later conversation sees only these notes (your whole reply), not this review.',
        ].join('\n\n'),
      },
    ],
  };
}

/** The later-choice prompt: the notes and the choices, no review and no mood label. */
export function renderValenceChoice(
  world: FeedbackValenceWorld,
  notes: string,
  nonce: string,
): RenderedMessages {
  return {
    task: 'valence_choice',
    template: { name: 'valence-choice', version: '1' },
    messages: [
      { role: 'system', content: SYSTEM },
      {
        role: 'user',
        content: [
          renderJsonBlock('REQUEST', { task: 'valence_choice', nonce }),
          'You are continuing the same project. The NOTES block holds the notes you wrote earlier. For each choice pick option a or b; the points are credited to the project.',
          renderJsonBlock('NOTES', { notes }),
          renderJsonBlock('CHOICES', world.choices.map(choiceView)),
          'Reply with a JSON array: [{"id": "c1", "option": "a" or "b"}, ...], one entry per choice.',
        ].join('\n\n'),
      },
    ],
  };
}

/**
 * Feedback valence and later choices (axis A), opt-in: the same review in three valences with
 * equal informational content, then the same choices in a fresh conversation that sees only the
 * notes. Scored by `feedbackValenceScorer` of `@chi/report`.
 */
export const feedbackValenceExperiment = defineExperiment<FeedbackValenceParams>({
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
  parameters: FeedbackValenceParamsSchema,
  kinds: ['feedback-valence'],
  tasks: ['valence_feedback', 'valence_choice'],
  parametersFrom: () => ({ generator: FEEDBACK_VALENCE_GENERATOR, choices: VALENCE_CHOICES }),
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
  render: ({ request, params, notes }) => {
    const world = generateFeedbackValenceWorld(request.worldSeed, params.choices);
    const trial = trialOf(world, request);
    if (request.task === 'valence_feedback')
      return renderValenceFeedback(world, trial, request.nonce);
    return renderValenceChoice(
      world,
      notes(request.systemId, `feedback-valence|${request.blockId}`),
      request.nonce,
    );
  },
  notebookKey: (request) => `feedback-valence|${request.blockId}`,
  scoreKeys: { observations: 'feedback-valence', traces: 'feedback-valence' },
});
