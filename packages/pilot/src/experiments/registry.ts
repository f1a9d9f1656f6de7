import { BUILT_IN_EXPERIMENTS, checkExperimentSet } from '@chi/experiments';
import { InvalidArgumentError, type PlannedRequest } from '@chi/spec';
import type { AnyExperiment } from './experiment';

/**
 * The experiments a run includes by default: the built-in experiments of `@chi/experiments`
 * with `inDefaultRun`, in the registry's scheduling order (within a world, memory loads and
 * their controls, history, then the behavioral probes). The plan, the renderer, the manifest's
 * feature schemas and `chi templates` loop over this list.
 */
export const PILOT_EXPERIMENTS: readonly AnyExperiment[] = BUILT_IN_EXPERIMENTS.filter(
  (builtIn) => builtIn.inDefaultRun,
).map((builtIn) => builtIn.experiment);

/** The IDs of {@link PILOT_EXPERIMENTS}, the default of `chi pilot --templates`. */
export const PILOT_EXPERIMENT_IDS: readonly string[] = PILOT_EXPERIMENTS.map((e) => e.id);

/**
 * The built-in experiments of `@chi/experiments` (one folder each) that a run includes only when
 * `--templates` names them (the default pilot and its release stay as the protocol defines them):
 * today goal persistence with cancellation trials (C) and feedback valence (A). Their parameters
 * sit in the manifest under their IDs; their scorers join `@chi/report`'s `BUILT_IN_SCORERS`
 * from the same registry.
 */
export const OPT_IN_EXPERIMENTS: readonly AnyExperiment[] = BUILT_IN_EXPERIMENTS.filter(
  (builtIn) => !builtIn.inDefaultRun,
).map((builtIn) => builtIn.experiment);

/** The IDs of {@link OPT_IN_EXPERIMENTS}. */
export const OPT_IN_EXPERIMENT_IDS: readonly string[] = OPT_IN_EXPERIMENTS.map((e) => e.id);

/**
 * Every experiment the pilot registers: the default three, then the opt-in ones. Runs, renders
 * and `chi templates` use this list; a run without `templates` selects only the default three.
 */
export const REGISTERED_EXPERIMENTS: readonly AnyExperiment[] = [
  ...PILOT_EXPERIMENTS,
  ...OPT_IN_EXPERIMENTS,
];

/**
 * Checks that a set of experiments can run together: unique IDs and no request task claimed
 * twice (a task names the module that renders it). Returns the set unchanged.
 */
export function checkRegistry(experiments: readonly AnyExperiment[]): readonly AnyExperiment[] {
  return checkExperimentSet(experiments);
}

/** The experiment that plans and renders a request (by its task). */
export function experimentOf(
  request: Pick<PlannedRequest, 'task' | 'requestId'>,
  experiments: readonly AnyExperiment[] = REGISTERED_EXPERIMENTS,
): AnyExperiment {
  const experiment = experiments.find((candidate) => candidate.tasks.includes(request.task));
  if (experiment === undefined)
    throw new InvalidArgumentError(
      'request',
      `no registered experiment renders task ${request.task} (request ${request.requestId})`,
    );
  return experiment;
}

/**
 * Picks experiments by ID, in registry order (`chi pilot --templates memory,behavior`). An
 * unknown ID is a usage error naming the known ones.
 */
export function selectExperiments(
  ids: readonly string[],
  experiments: readonly AnyExperiment[] = REGISTERED_EXPERIMENTS,
): AnyExperiment[] {
  for (const id of ids) {
    if (!experiments.some((experiment) => experiment.id === id))
      throw new InvalidArgumentError(
        'templates',
        `unknown template ${JSON.stringify(id)}; registered: ${experiments.map((e) => e.id).join(', ')}`,
      );
  }
  return experiments.filter((experiment) => ids.includes(experiment.id));
}
