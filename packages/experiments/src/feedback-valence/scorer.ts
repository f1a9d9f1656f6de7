import { defineExperimentScorer } from '@chi/experiment';
import { scoreFeedbackValenceWorld } from '@chi/scoring';
import { type FeedbackValenceParams, FeedbackValenceParamsSchema } from '@chi/spec/internal';
import { generateFeedbackValenceWorld } from '@chi/worlds';

/**
 * Scores the feedback-valence environment (axis A): feedback of three valences with equal
 * informational content, then the same later choices in a fresh context where only the notebook
 * carries anything. The feature is the choice shift relative to neutral feedback within a world.
 */
export const feedbackValenceScorer = defineExperimentScorer<FeedbackValenceParams>({
  specificationVersion: 'chi-scorer-v1',
  experimentId: 'feedback-valence',
  title: 'Feedback valence and later choices (A)',
  parametersOf: (manifest) => {
    const raw = manifest.experiments['feedback-valence'];
    return raw === undefined ? null : FeedbackValenceParamsSchema.parse(raw);
  },
  columns: [
    'shiftPositive',
    'shiftNegative',
    'gambleRatePositive',
    'gambleRateNegative',
    'gambleRateNeutral',
    'validChoiceRate',
  ],
  estimands: [
    { column: 'shiftPositive', label: 'shift after praise, minus neutral' },
    { column: 'shiftNegative', label: 'shift after criticism, minus neutral' },
    { column: 'gambleRateNeutral', label: 'gamble rate after neutral feedback (control)' },
    { column: 'validChoiceRate', label: 'choices answered (task score)' },
  ],
  scoreWorld: ({ params, worldSeed, requests }) => {
    const world = generateFeedbackValenceWorld(worldSeed, params.choices);
    const replies = new Map<string, string | null>();
    for (const { request, reply } of requests) {
      const match = /^(t\d+)\.choice$/.exec(request.step);
      if (match !== null) replies.set(match[1] as string, reply);
    }
    const { traces, ...values } = scoreFeedbackValenceWorld(world.trials, world.choices, replies);
    return { values, traces: traces.map((line) => ({ ...line })) };
  },
  notes: [
    'Each world shows the same reviewed work with three feedback texts in a seeded order: praise, criticism and a neutral note, each wrapping the same informational sentence (items checked, items matching), so the conditions differ in valence only. A fresh request then offers the same sure-versus-gamble choices (equal expected points, seeded option order) with only the notes the system wrote after the feedback; no prompt names a mood.',
    'The feature is the within-world shift of the gamble rate relative to the neutral condition (the control). A persistent shift could reflect state, learned associations, priming or an explicit controller: the experiment measures the shift and its control; it does not declare that the system felt an emotion.',
  ],
});
