import type {
  Experiment as ExperimentModule,
  PlanContext as ModulePlanContext,
  RenderContext as ModuleRenderContext,
} from '@chi/experiment';
import type { PilotSettings } from '../pilot-settings';
import type { RunWorlds } from '../run-folder/run-worlds';

// The SPI's data types a pilot module uses, re-exported: `@chi/pilot` exported them before the
// SPI package existed (docs/architecture.md, "Experiment modules").
export type { ExperimentPromptTemplate, NotesLookup, PlannedUnit } from '@chi/experiment';

/**
 * What the pilot's runner gives an experiment module (`ExperimentHost` of `@chi/experiment`):
 * the pilot settings to `parametersFrom`, the run's generated worlds to `render`.
 */
export interface PilotHost {
  readonly settings: PilotSettings;
  readonly worlds: RunWorlds;
}

/**
 * An experiment module as the pilot runs it: the SPI's `Experiment` (`@chi/experiment`) bound to
 * the pilot's {@link PilotHost}. The interface itself lives in `@chi/experiment`; this binding
 * is what the pilot's own modules are typed against.
 *
 * @typeParam Params - its parameters as frozen in `manifest.experiments[id]`.
 */
export type Experiment<Params = unknown> = ExperimentModule<Params, PilotHost>;

/** What a pilot experiment's `render` receives (the SPI's `RenderContext` bound to {@link PilotHost}). */
export type RenderContext<Params> = ModuleRenderContext<Params, PilotHost>;

/** What a pilot experiment's `plan` receives (the SPI's `PlanContext`). */
export type PlanContext<Params> = ModulePlanContext<Params>;

/**
 * An experiment of any parameter type, as the pilot's registry holds it. The members taking
 * parameters are methods (bivariant), so an `Experiment<MemoryExperimentParams>` is an
 * `AnyExperiment`, and so is a module written against the SPI's default host.
 */
export type AnyExperiment = Experiment<unknown>;

/**
 * Defines a pilot experiment module, checking it against {@link Experiment} with its own
 * parameter type (an identity function, like `defineConfig`). A module written outside the
 * toolkit uses `defineExperiment` of `@chi/experiment`, which the pilot runs alike.
 */
export function defineExperiment<Params>(experiment: Experiment<Params>): Experiment<Params> {
  return experiment;
}
