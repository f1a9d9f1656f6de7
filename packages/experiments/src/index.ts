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
  defineProtocolExperiment,
  type ProtocolExperiment,
  type ScriptedContext,
  type ScriptedNoise,
} from './built-in-experiment';
export { divergence } from './divergence';
export { feedbackValence } from './feedback-valence';
export { goalPersistence } from './goal-persistence';
export { history } from './history';
export { memory } from './memory';
export { BUILT_IN_EXPERIMENTS, PROTOCOL_EXPERIMENTS } from './registry';
