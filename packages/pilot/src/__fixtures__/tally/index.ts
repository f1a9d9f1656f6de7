import { type BuiltInExperiment, defineBuiltInExperiment } from '@chi/experiments';
import { type TallyParams, tallyExperiment } from './experiment';
import { scriptedTally } from './scripted';
import { tallyScorer } from './scorer';

/**
 * A built-in experiment added the way every built-in is: this folder (module, prompt, scripted
 * policies, scorer) and one line in the registry (`[...BUILT_IN_EXPERIMENTS, tally]`, its test).
 */
export const tally: BuiltInExperiment<TallyParams> = defineBuiltInExperiment({
  experiment: tallyExperiment,
  scorer: tallyScorer,
  scripted: scriptedTally,
  inDefaultRun: false,
});
