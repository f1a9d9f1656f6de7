import type { MemoryExperimentParams } from '@chi/spec/internal';
import { type BuiltInExperiment, defineBuiltInExperiment } from '../built-in-experiment';
import { memoryExperiment } from './experiment';
import { memoryScorer } from './scorer';
import { type ScriptedMemoryPolicy, scriptedMemoryReply } from './scripted';

/**
 * The memory experiment and its blank and oracle controls (in the default run): the module
 * (./experiment.ts, rendered by ./render.ts), its template names (./prompts.ts), its scripted
 * policies (./scripted.ts: notes under the cap, precedence, abstention, declared fading and
 * decay) and its scorer (./scorer.ts, which also scores the `controls` blocks). The world
 * generator (`generateMemoryWorld`, `@chi/worlds`), Q_M (`scoreMemoryProbes`, `@chi/scoring`) and
 * the analysis (`memoryAnalysis`, `@chi/analysis`) stay pure libraries there.
 */
export const memory: BuiltInExperiment<MemoryExperimentParams, ScriptedMemoryPolicy> =
  defineBuiltInExperiment({
    experiment: memoryExperiment,
    scorer: memoryScorer,
    scripted: scriptedMemoryReply,
    inDefaultRun: true,
  });
