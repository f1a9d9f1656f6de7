import type { HistoryExperimentParams } from '@chi/spec/internal';
import { type BuiltInExperiment, defineBuiltInExperiment } from '../built-in-experiment';
import { historyExperiment } from './experiment';
import { historyScorer } from './scorer';
import { type ScriptedHistoryPolicy, scriptedHistoryReply } from './scripted';

/**
 * The longitudinal history experiment (histories A, B and the same-history control A2 over five
 * checkpoints; in the default run): the module (./experiment.ts, rendered by ./render.ts), its
 * template names (./prompts.ts), its scripted policies (./scripted.ts), its scorer (./scorer.ts)
 * and the one reading of a probe's reply (./probe-reading.ts, which the CHIS log and the
 * divergence protocol share). The world generator (`generateHistoryWorld`, `@chi/worlds`), the
 * scores (`scoreHistory`, `@chi/scoring`) and the analysis (`historyAnalysis`, `@chi/analysis`)
 * stay pure libraries there.
 */
export const history: BuiltInExperiment<HistoryExperimentParams, ScriptedHistoryPolicy> =
  defineBuiltInExperiment({
    experiment: historyExperiment,
    scorer: historyScorer,
    scripted: scriptedHistoryReply,
    inDefaultRun: true,
  });
