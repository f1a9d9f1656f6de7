import type { FeedbackValenceParams } from '@chi/spec/internal';
import { type BuiltInExperiment, defineBuiltInExperiment } from '../built-in-experiment';
import { feedbackValenceExperiment } from './experiment';
import { feedbackValenceScorer } from './scorer';
import { scriptedValenceReply } from './scripted';

/**
 * Feedback valence and later choices (axis A, opt-in): the module (./experiment.ts), its prompts
 * (./prompts.ts), its scripted policies (./scripted.ts) and its scorer (./scorer.ts). The world
 * generator (`generateFeedbackValenceWorld`, `@chi/worlds`) and the per-world score
 * (`scoreFeedbackValenceWorld`, `@chi/scoring`) stay pure libraries there.
 */
export const feedbackValence: BuiltInExperiment<FeedbackValenceParams> = defineBuiltInExperiment({
  experiment: feedbackValenceExperiment,
  scorer: feedbackValenceScorer,
  scripted: scriptedValenceReply,
  inDefaultRun: false,
});
