import type {
  Experiment,
  ExperimentHost,
  ExperimentScorer,
  ExperimentSettings,
} from '@chi/experiment';
import type { BehavioralItemSet, HistoryWorld, MemoryWorld } from '@chi/spec';
import { InvalidArgumentError, type RequestTask } from '@chi/spec';

/**
 * What a runner gives a built-in experiment (the SPI's `ExperimentHost`, narrowed): the options
 * its flags set and the run's stored worlds. Named here so the built-in experiments are typed
 * without importing the runner; the pilot's `PilotHost` (its `PilotSettings` and `RunWorlds`)
 * satisfies it.
 */
export interface BuiltInHost extends ExperimentHost {
  readonly settings: ExperimentSettings;
  /**
   * The generated worlds of the experiments that render from stored worlds (memory by
   * `<seed>|<load>`, history and behavior by seed; the pilot's `RunWorlds`). An experiment that
   * regenerates its world from the seed (goal persistence, feedback valence) never reads them.
   */
  readonly worlds: {
    readonly memory: ReadonlyMap<string, MemoryWorld>;
    readonly history: ReadonlyMap<number, HistoryWorld>;
    readonly behavior: ReadonlyMap<number, BehavioralItemSet>;
  };
}

/**
 * Everything that is one built-in experiment, from one folder of `@chi/experiments`: the module
 * (descriptor, planner, renderer, its declared prompt templates), its scorer, and what each
 * scripted reference system answers to its tasks. The pilot's registry, the scripted systems and
 * the report's scorers iterate a list of these ({@link BUILT_IN_EXPERIMENTS}) and never name one.
 *
 * @typeParam Params - its parameters as frozen in `manifest.experiments[id]`.
 */
export interface BuiltInExperiment<Params = unknown> {
  readonly experiment: Experiment<Params, BuiltInHost>;
  readonly scorer: ExperimentScorer<Params>;
  /**
   * The reply of a scripted reference system (`system`: its name, `perfect`, `latest-wins`, ...)
   * to one of the experiment's tasks, from the prompt's last user message (the policy reads only
   * its JSON blocks; deterministic). Throws an `InvalidArgumentError` for a system it has no
   * policy for.
   */
  scripted(request: {
    readonly system: string;
    readonly task: RequestTask;
    readonly prompt: string;
  }): string;
  /**
   * Whether a run without `--templates` includes it. The opt-in environments do not: the default
   * pilot and its release stay as the protocol defines them.
   */
  readonly inDefaultRun: boolean;
}

/** One request a scripted policy answers (the argument of {@link BuiltInExperiment.scripted}). */
export type ScriptedRequest = Parameters<BuiltInExperiment['scripted']>[0];

/**
 * Defines a built-in experiment, checking that its module and scorer agree on the ID (an identity
 * function otherwise, like `defineExperiment`).
 */
export function defineBuiltInExperiment<Params>(
  builtIn: BuiltInExperiment<Params>,
): BuiltInExperiment<Params> {
  if (builtIn.scorer.experimentId !== builtIn.experiment.id)
    throw new InvalidArgumentError(
      'scorer',
      `experiment ${builtIn.experiment.id} has a scorer for ${builtIn.scorer.experimentId}`,
    );
  return builtIn;
}

/** The policy of scripted system `system` in a policy table, or an error naming the experiment. */
export function scriptedPolicyOf<Policy>(
  table: Readonly<Record<string, Policy>>,
  system: string,
  experimentId: string,
): Policy {
  const policy = Object.hasOwn(table, system) ? table[system] : undefined;
  if (policy === undefined)
    throw new InvalidArgumentError(
      'system',
      `${experimentId} has no scripted policy for ${JSON.stringify(system)}; it has ${Object.keys(table).join(', ')}`,
    );
  return policy;
}

/**
 * Checks that a set of experiment modules can run together: unique IDs and no request task
 * claimed twice (a task names the module that renders it), else an `InvalidArgumentError` on
 * `experiments` naming the experiment or task. Returns the set unchanged. The pilot checks every
 * run's set with it (its own experiments, these and any added from outside).
 */
export function checkExperimentSet<
  List extends readonly { readonly id: string; readonly tasks: readonly string[] }[],
>(experiments: List): List {
  const ids = new Set<string>();
  const tasks = new Map<string, string>();
  for (const experiment of experiments) {
    if (ids.has(experiment.id))
      throw new InvalidArgumentError('experiments', `experiment ${experiment.id} is listed twice`);
    ids.add(experiment.id);
    for (const task of experiment.tasks) {
      const owner = tasks.get(task);
      if (owner !== undefined)
        throw new InvalidArgumentError(
          'experiments',
          `task ${task} is claimed by both ${owner} and ${experiment.id}`,
        );
      tasks.set(task, experiment.id);
    }
  }
  return experiments;
}

/**
 * Checks that a registry's experiments can run together ({@link checkExperimentSet} over their
 * modules). Returns the list unchanged.
 */
export function checkBuiltInRegistry<List extends readonly BuiltInExperiment[]>(
  registry: List,
): List {
  checkExperimentSet(registry.map(({ experiment }) => experiment));
  return registry;
}
