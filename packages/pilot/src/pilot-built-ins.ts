import type { AnyExperimentScorer } from '@chi/experiment';
import type { BuiltInExperiment } from '@chi/experiments';
import type { AnyExperiment } from './experiments/experiment';

/**
 * The scorers of a run whose built-in registry is `builtIns`: each built-in experiment's, in
 * registry order. With the default registry this is `BUILT_IN_SCORERS` of `@chi/report`.
 */
export function scorersOf(builtIns: readonly BuiltInExperiment[]): AnyExperimentScorer[] {
  return builtIns.map((builtIn) => builtIn.scorer);
}

/** The experiment modules of a run whose built-in registry is `builtIns`, in registry order. */
export function experimentsOf(builtIns: readonly BuiltInExperiment[]): AnyExperiment[] {
  return builtIns.map((builtIn) => builtIn.experiment);
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
