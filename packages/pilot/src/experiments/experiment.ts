import type { ExperimentDescriptor } from '@chi/run';
import type {
  ExperimentKind,
  PlannedBlock,
  PlannedRequest,
  RequestTask,
  RunManifest,
} from '@chi/spec';
import type { PromptSet } from '../prompts';
import type { RenderedMessages } from '../render-requests';
import type { RunWorlds } from '../run-worlds';
import type { PilotSettings } from '../settings';

/**
 * A prompt template an experiment module declares itself (an experiment written outside the
 * toolkit's packages has no file in `packages/pilot/prompts/`). A run that includes the module
 * freezes it into `prompts/<name>@<version>.txt` and `manifest.prompts`, exactly like a packaged
 * template; the module renders from the run's `prompts` (the frozen copy, checked byte for byte
 * on resume), never from this text directly.
 */
export interface ExperimentPromptTemplate {
  /** Lowercase letters, digits and dashes; unique across the packaged and declared templates. */
  readonly name: string;
  /** Digits, e.g. `'1'`; bump it when the text changes. */
  readonly version: string;
  /** The exact template text (`{{PLACEHOLDER}}`s; `[section]` header lines for a sectioned file). */
  readonly text: string;
  /**
   * For a sectioned file (`promptSections`): its section names, in file order. The run checks the
   * text has exactly these before freezing it. Absent: a plain template.
   */
  readonly sections?: readonly string[];
}

/** Looks up the current notes of a system; throws when a dependency has not produced them. */
export type NotesLookup = (systemId: string, key: string) => string;

/**
 * One matched block an experiment plans for one world: its block record and, for each system,
 * that system's requests in order. The plan builder interleaves the systems' lists, so a block
 * completes across systems before the next one starts.
 */
export interface PlannedUnit {
  readonly block: Omit<PlannedBlock, 'requestIds'>;
  readonly requestsFor: (systemId: string) => PlannedRequest[];
}

/** What {@link Experiment.render} receives. */
export interface RenderContext<Params> {
  readonly request: PlannedRequest;
  readonly manifest: RunManifest;
  /** This experiment's parameters from `manifest.experiments` (never null here). */
  readonly params: Params;
  readonly worlds: RunWorlds;
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
 * this one interface, and one contract suite, `checkExperimentContract`, checks them all).
 *
 * The declarative part ({@link ExperimentDescriptor} of `@chi/run`: axis slots, procedure, task
 * score, features, control, seed passages, parameter schema) is what the framework asks every
 * test template to state. The executable part plans and renders its registered requests.
 * Scoring and analysis still run in `@chi/report` over every experiment at once (see
 * docs/architecture.md, "Experiment modules"); `scoreKey` names the part of the report's
 * scores this experiment owns.
 *
 * @typeParam Params - its parameters as frozen in `manifest.experiments[id]`.
 */
export interface Experiment<Params = unknown> extends ExperimentDescriptor<Params> {
  /** Version marker of this interface. */
  readonly specificationVersion: 'chi-experiment-v1';
  /** The planned `experiment` values its requests and blocks carry (memory owns `controls`). */
  readonly kinds: readonly ExperimentKind[];
  /** The request tasks it plans and renders; no two registered experiments share a task. */
  readonly tasks: readonly RequestTask[];
  /**
   * Its parameters for a run from the pilot settings, or null when the settings disable it. The
   * result is frozen into `manifest.experiments[id]`.
   */
  parametersFrom(settings: PilotSettings): Params | null;
  /** Its parameters in a frozen manifest, or null when the run does not include it. */
  parametersOf(manifest: RunManifest): Params | null;
  /** The matched blocks of one world, in scheduling order. */
  plan(context: PlanContext<Params>): PlannedUnit[];
  /** The messages of one of its registered requests; only blind data reaches a prompt. */
  render(context: RenderContext<Params>): RenderedMessages;
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
   * its `unusedTemplates`), and rendered from those frozen copies through `requireTemplate`.
   * A name already used by a packaged template or another module is refused (usage error).
   * Absent: the module uses packaged templates only (the toolkit's own modules).
   */
  readonly promptTemplates?: readonly ExperimentPromptTemplate[];
  /** The keys of `RunScores` (`@chi/report`) holding its observations and traces. */
  readonly scoreKeys: { readonly observations: string; readonly traces: string };
}

/**
 * An experiment of any parameter type, as a registry holds it. The members taking parameters are
 * methods (bivariant), so an `Experiment<MemoryExperimentParams>` is an `AnyExperiment`; each
 * module is checked against its own `Experiment<Params>` where it is defined.
 */
export type AnyExperiment = Experiment<unknown>;

/**
 * Defines an experiment module, checking it against {@link Experiment} with its own parameter
 * type (an identity function, like `defineConfig`).
 */
export function defineExperiment<Params>(experiment: Experiment<Params>): Experiment<Params> {
  return experiment;
}

/**
 * An integer option of `settings.experimentOptions` (set by a flag or configuration-file field an
 * experiment's parameter schema declares), or null when the run does not set it.
 */
export function integerOption(settings: PilotSettings, option: string): number | null {
  const value = settings.experimentOptions?.[option];
  return typeof value === 'number' ? value : null;
}
