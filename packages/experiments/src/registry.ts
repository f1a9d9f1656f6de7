import { behavior } from './behavior';
import {
  type BuiltInExperiment,
  checkBuiltInRegistry,
  checkExperimentSet,
  type ProtocolExperiment,
} from './built-in-experiment';
import { divergence } from './divergence';
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

/**
 * The experiments that are protocols of their own (the divergence protocol), each a folder like
 * the built-in ones but not among {@link BUILT_IN_EXPERIMENTS}: `chi pilot --templates`, the
 * scripted systems' switch and `chi templates` iterate that list only, so none of them offers or
 * changes one of these, and the default pilot's plan, manifest and release do not include them.
 * Their IDs and tasks are checked against the built-in ones.
 */
export const PROTOCOL_EXPERIMENTS: readonly ProtocolExperiment[] = [divergence];
checkExperimentSet(
  [...BUILT_IN_EXPERIMENTS, ...PROTOCOL_EXPERIMENTS].map((entry) => entry.experiment),
);
