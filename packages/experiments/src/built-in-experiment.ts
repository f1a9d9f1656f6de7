import type {
  Experiment,
  ExperimentHost,
  ExperimentScorer,
  ExperimentSettings,
} from '@chi/experiment';
import type { BehavioralItemSet, HistoryWorld, MemoryWorld, PlannedBlock } from '@chi/spec';
import { InvalidArgumentError, type RequestTask } from '@chi/spec';

/**
 * The runner's settings the default run's experiments (memory, history, behavior) read in
 * `parametersFrom`, beside the options of declared flags. Named here so those modules are typed
 * without importing the runner; the pilot's `PilotSettings` satisfies it.
 */
export interface BuiltInSettings extends ExperimentSettings {
  /** Memory loads N; empty disables the memory experiment. */
  readonly loads: readonly number[];
  readonly probesPerStratum: number;
  /** Probes per probe request; null = one batch with every probe. */
  readonly batchSize: number | null;
  /** Load of the blank and oracle controls; null disables them. */
  readonly controlsAtLoad: number | null;
  /** The memory experiment's transcript-replay baseline (opt-in; absent = off). */
  readonly transcriptReplay?: boolean;
  /** Ask every behavioral item under both declared wordings (opt-in; absent = one wording). */
  readonly probeWordings?: boolean;
  readonly history: boolean;
  readonly behavior: boolean;
}

/**
 * What a runner gives a built-in experiment (the SPI's `ExperimentHost`, narrowed): the settings
 * its `parametersFrom` reads and the run's stored worlds. Named here so the built-in experiments
 * are typed without importing the runner; the pilot's `PilotHost` (its `PilotSettings` and
 * `RunWorlds`) satisfies it.
 */
export interface BuiltInHost extends ExperimentHost {
  readonly settings: BuiltInSettings;
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

/** The key of a memory world in {@link BuiltInHost.worlds} (the runner's worlds): `<seed>|<load>`. */
export function memoryWorldKey(seed: number, load: number): string {
  return `${seed}|${load}`;
}

/**
 * The key of a memory world in {@link BuiltInRecords.memoryWorlds} (a run folder's world files):
 * `w<seed>-n<load>`, the stem of the world's file name.
 */
export function memoryFileKey(seed: number, load: number): string {
  return `w${seed}-n${load}`;
}

/**
 * What a per-block scorer of a built-in experiment looks up in the run it scores (`ScorerBlocks`'
 * `Records`): the stored worlds, and the run-folder path of each (named in a scoring error; the
 * paths are `@chi/run`'s, so no folder spells a run file's name). The report's `RunRecords`
 * satisfies it.
 */
export interface BuiltInRecords {
  /** Memory worlds by {@link memoryFileKey}, with the path each was read from. */
  readonly memoryWorlds: {
    get(key: string): MemoryWorld | undefined;
    pathOf(key: string): string | undefined;
  };
  /** History worlds by seed. */
  readonly historyWorlds: { get(seed: number): HistoryWorld | undefined };
  /** Behavioral item sets by seed. */
  readonly behaviorItems: { get(seed: number): BehavioralItemSet | undefined };
  /** The run-folder paths of the worlds (relative to the folder, current layout). */
  readonly worldPaths: {
    memoryWorld(seed: number, load: number): string;
    historyWorld(seed: number): string;
    behaviorWorld(seed: number): string;
  };
}

/**
 * The world a block is scored against, looked up by `key` (a world seed, or memory's seed and
 * load), or an error naming the block and the missing `what` (`history world w3`). The one lookup
 * of every per-block scorer's `world`.
 */
export function blockWorld<Key, World>(
  files: { get(key: Key): World | undefined },
  key: Key,
  block: Pick<PlannedBlock, 'blockId'>,
  what: string,
): World {
  const world = files.get(key);
  if (world === undefined) throw new Error(`block ${block.blockId}: no ${what}`);
  return world;
}

/** Deterministic draws of a scripted system for one request (the runner seeds them). */
export interface ScriptedNoise {
  /** A uniform draw in [0, 1) named by `label`; the same label always gives the same draw. */
  uniform(label: string): number;
  /** True with probability `probability` (a named draw). */
  chance(label: string, probability: number): boolean;
  /** Eight lowercase hex characters (a named draw), e.g. for an invented value. */
  hex8(label: string): string;
}

/**
 * What a scripted policy of a built-in experiment is given for one request
 * ({@link BuiltInExperiment.scripted}).
 *
 * @typeParam Policy - the experiment's own policy parameters of a scripted system.
 */
export interface ScriptedContext<Policy = unknown> {
  /** The scripted system's name (`perfect`, `latest-wins`, ...). */
  readonly system: string;
  readonly task: RequestTask;
  /** The prompt's last user message; a policy reads only its JSON blocks. */
  readonly prompt: string;
  /**
   * The system definition's parameters for this experiment (the runner's scripted system
   * definition under the experiment's ID), or undefined when it declares none: an experiment
   * with its own policy table keyed by `system` (goal persistence) never reads it.
   */
  readonly policy: Policy | undefined;
  /** This request's seeded draws (the same request always draws the same). */
  readonly noise: ScriptedNoise;
  /** The run's clock; read only by a policy whose answers depend on time (a decaying memory). */
  now(): Date;
  /** The notebook cap the prompt states, or the runner's default when it states none. */
  readonly notebookCapBytes: number;
}

/**
 * Everything that is one built-in experiment, from one folder of `@chi/experiments`: the module
 * (descriptor, planner, renderer, its declared prompt templates), its scorer, and what each
 * scripted reference system answers to its tasks. The pilot's registry, the scripted systems and
 * the report's scorers iterate a list of these ({@link BUILT_IN_EXPERIMENTS}) and never name one.
 *
 * @typeParam Params - its parameters as frozen in `manifest.experiments[id]`.
 */
export interface BuiltInExperiment<Params = unknown, Policy = unknown> {
  readonly experiment: Experiment<Params, BuiltInHost>;
  readonly scorer: ExperimentScorer<Params>;
  /**
   * The reply of a scripted reference system (`system`: its name, `perfect`, `latest-wins`, ...)
   * to one of the experiment's tasks, from the prompt's last user message (the policy reads only
   * its JSON blocks; deterministic given the context's draws). Throws an `InvalidArgumentError`
   * for a system it has no policy for.
   */
  scripted(request: ScriptedContext<Policy>): string;
  /**
   * Whether a run without `--templates` includes it. The opt-in environments do not: the default
   * pilot and its release stay as the protocol defines them.
   */
  readonly inDefaultRun: boolean;
}

/** One request a scripted policy answers (the argument of {@link BuiltInExperiment.scripted}). */
export type ScriptedRequest<Policy = unknown> = ScriptedContext<Policy>;

/**
 * Defines a built-in experiment, checking that its module and scorer agree on the ID (an identity
 * function otherwise, like `defineExperiment`).
 */
export function defineBuiltInExperiment<Params, Policy = unknown>(
  builtIn: BuiltInExperiment<Params, Policy>,
): BuiltInExperiment<Params, Policy> {
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

/**
 * An experiment that is a protocol of its own, not a template of the default pilot: its module
 * and its scorer, from one folder of `@chi/experiments` (the divergence protocol). A run includes
 * it only through its own command (`chi divergence`), never through `chi pilot --templates`, so
 * it has no `inDefaultRun` flag; its scripted reference systems are instance-seeded chat models
 * kept by the runner (each arm is an independently initialized instance whose hidden state
 * persists across its calls), which a per-request {@link ScriptedContext} policy cannot express.
 *
 * @typeParam Params - its parameters as frozen in `manifest.experiments[id]`.
 * @typeParam ScorerParams - what its scorer reads of the manifest (its `parametersOf`), which may
 *   be a wider view than `Params` (the divergence scorer reads the systems and the notebook cap).
 */
export interface ProtocolExperiment<Params = unknown, ScorerParams = unknown> {
  readonly experiment: Experiment<Params, BuiltInHost>;
  readonly scorer: ExperimentScorer<ScorerParams>;
}

/**
 * Defines a protocol experiment, checking that its module and scorer agree on the ID (an identity
 * function otherwise).
 */
export function defineProtocolExperiment<Params, ScorerParams>(
  protocol: ProtocolExperiment<Params, ScorerParams>,
): ProtocolExperiment<Params, ScorerParams> {
  if (protocol.scorer.experimentId !== protocol.experiment.id)
    throw new InvalidArgumentError(
      'scorer',
      `experiment ${protocol.experiment.id} has a scorer for ${protocol.scorer.experimentId}`,
    );
  return protocol;
}
