import type {
  ChatMessage,
  ExperimentKind,
  PlannedBlock,
  PlannedRequest,
  RequestTask,
  RunManifest,
} from '@chi/spec';
import type { ExperimentDescriptor } from './experiment-descriptor';

/** One prompt template of a run: `prompts/<name>@<version>.txt`, loaded byte for byte. */
export interface PromptTemplate {
  readonly name: string;
  readonly version: string;
  /** The template text exactly as in the file. */
  readonly text: string;
  /** SHA-256 of the file bytes; goes into the manifest. */
  readonly sha256: string;
  /** Placeholder names (`{{NAME}}`) in order of first appearance. */
  readonly placeholders: readonly string[];
}

/** The templates a run uses, by name (the run folder's frozen set). */
export type PromptSet = ReadonlyMap<string, PromptTemplate>;

/**
 * A prompt template an experiment module declares itself (an experiment written outside the
 * toolkit's packages has no packaged file). A run that includes the module freezes it into
 * `prompts/<name>@<version>.txt` and `manifest.prompts`, exactly like a packaged template; the
 * module renders from the run's `prompts` (the frozen copy, checked byte for byte on resume),
 * never from this text directly.
 */
export interface ExperimentPromptTemplate {
  /** Lowercase letters, digits and dashes; unique across the packaged and declared templates. */
  readonly name: string;
  /** Digits, e.g. `'1'`; bump it when the text changes. */
  readonly version: string;
  /** The exact template text (`{{PLACEHOLDER}}`s; `[section]` header lines for a sectioned file). */
  readonly text: string;
  /**
   * For a sectioned file: its section names, in file order. The run checks the text has exactly
   * these before freezing it. Absent: a plain template.
   */
  readonly sections?: readonly string[];
}

/** The messages of one rendered request, with the task and the template they came from. */
export interface RenderedMessages {
  readonly task: RequestTask;
  readonly template: { readonly name: string; readonly version: string };
  readonly messages: readonly ChatMessage[];
}

/** Looks up the current notes of a system; throws when a dependency has not produced them. */
export type NotesLookup = (systemId: string, key: string) => string;

/**
 * One matched block an experiment plans for one world: its block record and, for each system,
 * that system's requests in order. The planner interleaves the systems' lists, so a block
 * completes across systems before the next one starts.
 */
export interface PlannedUnit {
  readonly block: Omit<PlannedBlock, 'requestIds'>;
  readonly requestsFor: (systemId: string) => PlannedRequest[];
}

/**
 * What the runner that hosts an experiment gives it beyond the frozen manifest: its run settings
 * (read by `parametersFrom`) and the run's generated worlds (read by `render`). The SPI names no
 * runner: the pilot binds this to its `PilotSettings` and `RunWorlds` (`PilotHost` of
 * `@chi/pilot`); an experiment written outside reads only `experimentOptions` and regenerates
 * its worlds from the seed.
 */
export interface ExperimentHost {
  readonly settings: ExperimentSettings;
  readonly worlds: unknown;
}

/** The part of a runner's settings every experiment may read. */
export interface ExperimentSettings {
  /**
   * Options set by the flags or configuration-file fields the experiments' parameter schemas
   * declare (`ParameterFlag.option`), by option name; only options given are present.
   */
  readonly experimentOptions?: Readonly<
    Record<string, number | readonly number[] | boolean | null>
  >;
}

/** What {@link Experiment.render} receives. */
export interface RenderContext<Params, Host extends ExperimentHost = ExperimentHost> {
  readonly request: PlannedRequest;
  readonly manifest: RunManifest;
  /** This experiment's parameters from `manifest.experiments` (never null here). */
  readonly params: Params;
  readonly worlds: Host['worlds'];
  readonly prompts: PromptSet;
  readonly notes: NotesLookup;
}

/** What {@link Experiment.plan} receives: one world of a run. */
export interface PlanContext<Params> {
  readonly manifest: RunManifest;
  readonly params: Params;
  readonly worldSeed: number;
}

/**
 * One experiment of a run as a module (the valibot/unstorage pattern: every experiment implements
 * this one interface, and one contract suite checks them all; `@chi/experiment/test`).
 *
 * The declarative part ({@link ExperimentDescriptor}: axis slots, procedure, task score,
 * features, control, seed passages, parameter schema) is what the framework asks every test
 * template to state. The executable part plans and renders its registered requests. Its scoring
 * is an `ExperimentScorer` (same package), which the report runs.
 *
 * @typeParam Params - its parameters as frozen in `manifest.experiments[id]`.
 * @typeParam Host - what the hosting runner gives it (settings and worlds; {@link ExperimentHost}).
 */
export interface Experiment<Params = unknown, Host extends ExperimentHost = ExperimentHost>
  extends ExperimentDescriptor<Params> {
  /** Version marker of this interface. */
  readonly specificationVersion: 'chi-experiment-v1';
  /** The planned `experiment` values its requests and blocks carry (memory owns `controls`). */
  readonly kinds: readonly ExperimentKind[];
  /** The request tasks it plans and renders; no two registered experiments share a task. */
  readonly tasks: readonly RequestTask[];
  /**
   * Its parameters for a run from the runner's settings, or null when the settings disable it.
   * The result is frozen into `manifest.experiments[id]`.
   */
  parametersFrom(settings: Host['settings']): Params | null;
  /** Its parameters in a frozen manifest, or null when the run does not include it. */
  parametersOf(manifest: RunManifest): Params | null;
  /** The matched blocks of one world, in scheduling order. */
  plan(context: PlanContext<Params>): PlannedUnit[];
  /** The messages of one of its registered requests; only blind data reaches a prompt. */
  render(context: RenderContext<Params, Host>): RenderedMessages;
  /**
   * The notebook a request of this experiment reads or writes (`memory|<seed>|<load>`,
   * `history|<seed>|<H>|<k>`); absent for an experiment without notebooks.
   */
  notebookKey?(
    request: Pick<
      PlannedRequest,
      'worldSeed' | 'load' | 'history' | 'checkpoint' | 'blockId' | 'step'
    >,
  ): string;
  /**
   * Notebook keys that exist, empty, before any request runs (history: every trajectory at
   * checkpoint 0), for every system; absent when every notebook is written by a request.
   */
  startingNotebooks?(manifest: RunManifest): readonly string[];
  /**
   * Equivalent wordings of its items, by wording number (1 is the registered wording), each
   * naming the template that phrases them; a probe-wording run asks the same items under wording
   * 2 as well, and the release reports per-feature agreement. Absent: one wording only.
   */
  readonly wordings?: readonly { readonly wording: number; readonly template: string }[];
  /**
   * Packaged templates of an opt-in condition that a run with these parameters (null: the run
   * leaves the experiment out) does not use: they stay out of the run's prompts and manifest, so
   * a run without the option keeps its bytes. Absent: every template is used.
   */
  unusedTemplates?(params: Params | null): readonly string[];
  /**
   * Templates the module brings itself (an experiment added from outside the packages): frozen
   * into a run's `prompts/` and `manifest.prompts` only when the run includes the module (minus
   * its `unusedTemplates`), and rendered from those frozen copies. A name already used by a
   * packaged template or another module is refused (usage error). Absent: the module uses
   * packaged templates only (the toolkit's own modules).
   */
  readonly promptTemplates?: readonly ExperimentPromptTemplate[];
}

/**
 * An experiment of any parameter type, as a registry holds it. The members taking parameters are
 * methods (bivariant), so an `Experiment<MemoryExperimentParams>` is an `AnyExperiment`; each
 * module is checked against its own `Experiment<Params>` where it is defined.
 */
export type AnyExperiment<Host extends ExperimentHost = ExperimentHost> = Experiment<unknown, Host>;

/**
 * Defines an experiment module, checking it against {@link Experiment} with its own parameter
 * type (an identity function, like `defineConfig`).
 *
 * @example
 * ```ts
 * export const myExperiment = defineExperiment<{ items: number }>({
 *   specificationVersion: 'chi-experiment-v1',
 *   id: 'x-my-experiment',
 *   // ... declarations, plan, render
 * });
 * ```
 */
export function defineExperiment<Params, Host extends ExperimentHost = ExperimentHost>(
  experiment: Experiment<Params, Host>,
): Experiment<Params, Host> {
  return experiment;
}
