import { behavior } from './behavior';
import { type BuiltInExperiment, checkBuiltInRegistry } from './built-in-experiment';
import { feedbackValence } from './feedback-valence';
import { goalPersistence } from './goal-persistence';
import { history } from './history';
import { memory } from './memory';

/**
 * The built-in experiments, one folder each, in scheduling order: memory, history and behavior
 * (`inDefaultRun`), then the opt-in environments. Adding one is a folder and one line here. The
 * pilot's registry, its scripted systems and the report's `BUILT_IN_SCORERS` iterate this list
 * and name none of them.
 */
export const BUILT_IN_EXPERIMENTS: readonly BuiltInExperiment[] = checkBuiltInRegistry([
  memory,
  history,
  behavior,
  goalPersistence,
  feedbackValence,
]);
