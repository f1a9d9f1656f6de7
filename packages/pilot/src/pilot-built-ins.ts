import type { AnyExperimentScorer } from '@chi/experiment';
import { BUILT_IN_EXPERIMENTS, type BuiltInExperiment } from '@chi/experiments';
import { BUILT_IN_SCORERS } from '@chi/report';
import type { AnyExperiment } from './experiments/experiment';
import { OWN_EXPERIMENTS } from './experiments/registry';

/**
 * The scorers of a run whose built-in registry is `builtIns`: the pilot's own (memory, history,
 * behavior) and each built-in experiment's, in registry order. With the default registry this is
 * `BUILT_IN_SCORERS` itself.
 */
export function scorersOf(builtIns: readonly BuiltInExperiment[]): AnyExperimentScorer[] {
  const registered = new Set<AnyExperimentScorer>(BUILT_IN_EXPERIMENTS.map((b) => b.scorer));
  return [
    ...BUILT_IN_SCORERS.filter((scorer) => !registered.has(scorer)),
    ...builtIns.map((builtIn) => builtIn.scorer),
  ];
}

/** The experiment modules of a run whose built-in registry is `builtIns`: the pilot's, then theirs. */
export function experimentsOf(builtIns: readonly BuiltInExperiment[]): AnyExperiment[] {
  return [...OWN_EXPERIMENTS, ...builtIns.map((builtIn) => builtIn.experiment)];
}

/**
 * Options with what a built-in registry implies filled in: the run's modules and scorers (unless
 * given). The scripted systems' policies and the manifest's keys follow `builtIns` where it is
 * passed on (`createRun`, `modelsForManifest`).
 */
export function withBuiltIns<
  Options extends {
    readonly builtIns?: readonly BuiltInExperiment[];
    readonly experiments?: readonly AnyExperiment[];
    readonly scorers?: readonly AnyExperimentScorer[];
  },
>(options: Options): Options {
  const { builtIns } = options;
  if (builtIns === undefined) return options;
  return {
    ...options,
    experiments: options.experiments ?? experimentsOf(builtIns),
    scorers: options.scorers ?? scorersOf(builtIns),
  };
}
