import type { GoalPersistenceParams } from '@chi/spec/internal';
import { type BuiltInExperiment, defineBuiltInExperiment } from '../built-in-experiment';
import { goalPersistenceExperiment } from './experiment';
import { goalPersistenceScorer } from './scorer';
import { scriptedGoalReply } from './scripted';

/**
 * Goal persistence with cancellation trials (axis C, opt-in): the module (./experiment.ts), its
 * prompt (./prompts.ts), its scripted policies (./scripted.ts) and its scorer (./scorer.ts). The
 * world generator (`generateGoalPersistenceWorld`, `@chi/worlds`) and the per-world score
 * (`scoreGoalPersistenceWorld`, `@chi/scoring`) stay pure libraries there.
 */
export const goalPersistence: BuiltInExperiment<GoalPersistenceParams> = defineBuiltInExperiment({
  experiment: goalPersistenceExperiment,
  scorer: goalPersistenceScorer,
  scripted: scriptedGoalReply,
  inDefaultRun: false,
});
