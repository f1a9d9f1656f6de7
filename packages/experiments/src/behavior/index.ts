import type { BehaviorExperimentParams } from '@chi/spec/internal';
import { type BuiltInExperiment, defineBuiltInExperiment } from '../built-in-experiment';
import { behaviorExperiment } from './experiment';
import { behaviorScorer } from './scorer';
import { type ScriptedBehaviorPolicy, scriptedBehaviorReply } from './scripted';

/**
 * The other behavioral probes (R, C, A, I task indicators; in the default run): the module
 * (./experiment.ts, rendered by ./render.ts and ./questions.ts), its question wordings
 * (./prompts.ts), its scripted policies (./scripted.ts, reading the wordings back with
 * ./question-reader.ts) and its scorer (./scorer.ts). The item generator
 * (`generateBehavioralItems`, `@chi/worlds`), the scores (`scoreBehavior`, `@chi/scoring`) and
 * the analysis (`behaviorAnalysis`, `@chi/analysis`) stay pure libraries there.
 */
export const behavior: BuiltInExperiment<BehaviorExperimentParams, ScriptedBehaviorPolicy> =
  defineBuiltInExperiment({
    experiment: behaviorExperiment,
    scorer: behaviorScorer,
    scripted: scriptedBehaviorReply,
    inDefaultRun: true,
  });
