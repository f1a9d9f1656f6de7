/**
 * `@chi/experiments`: the toolkit's built-in experiments, one folder each (module, prompt
 * templates, scripted policies, scorer), and the registry that lists them. Depends on the
 * experiment SPI (`@chi/experiment`) and the pure libraries (`@chi/spec`, `@chi/worlds`,
 * `@chi/scoring`), never on the runner, the report or the file system.
 *
 * @packageDocumentation
 */

export { behavior } from './behavior';
export {
  type BuiltInExperiment,
  type BuiltInHost,
  checkExperimentSet,
  defineBuiltInExperiment,
  type ScriptedContext,
  type ScriptedNoise,
} from './built-in-experiment';
export { feedbackValence } from './feedback-valence';
export { goalPersistence } from './goal-persistence';
export { history } from './history';
export { memory } from './memory';
export { BUILT_IN_EXPERIMENTS } from './registry';
