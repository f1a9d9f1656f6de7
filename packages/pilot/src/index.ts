/**
 * `@chi/pilot`: the CHI/CHIS longitudinal model pilot runner. It owns the prompt templates, the
 * 6000-byte notebook, the run folder (see RUN-FOLDER.md), the scripted reference systems and the
 * `chi` CLI, and composes `@chi/worlds`, `@chi/scoring`, `@chi/chis`, `@chi/openrouter` and
 * `@chi/report`. Nothing here prints: progress flows out as typed {@link PilotEvent}s.
 *
 * @packageDocumentation
 */
// The divergence protocol v0.1 (issue 19): `chi pilot --protocol divergence-v0.1`.

export type { DivergenceIntervalMethod, DivergenceManifest } from '@chi/experiments/internal';
export type {
  DivergenceAnalysis,
  DivergenceDynamic,
  DivergenceEstimate,
  DivergenceSeries,
  DivergenceSystemResult,
  ExcludedInstance,
} from './divergence/analyze';
export {
  type WriteDivergenceReleaseOptions,
  writeDivergenceRelease,
} from './divergence/release';
export { type RunDivergenceOptions, runDivergenceProtocol } from './divergence/run';
export type { PilotEvent, PilotEventSink, PilotProgress } from './events';
export {
  checkExperimentContract,
  type ExperimentContractOptions,
  type ExperimentContractResult,
} from './experiments/contract';
// The SPI's own types (`PlannedUnit`, `PromptSet`, `RenderedMessages`, ...) are imported from
// `@chi/experiment`, the built-in experiments from `@chi/experiments`; the pilot exports its
// binding of the SPI to its host.
export {
  type AnyExperiment,
  defineExperiment,
  type Experiment,
  type PilotHost,
} from './experiments/experiment';
export { PILOT_EXPERIMENTS } from './experiments/registry';
export type { FrozenManifest } from './manifest';
export { type PilotOutcome, type RunPilotOptions, runPilot } from './pilot';
export { formatPlanCost, planCost, type RunPlanCost, type SystemPlanCost } from './plan-cost';
export { createProgressRenderer, type ProgressOutput } from './progress';
export { loadPromptTemplates } from './prompts';
export { renderSmoke } from './render-requests';
export {
  type CreateRunOptions,
  createRun,
  type PlannedRun,
  type PreparedRun,
  prepareRun,
  type RunHandle,
} from './run-create';
export { type ExecuteOutcome, type ExecuteRunOptions, executeRun } from './run-execute';
export type { RunWorlds } from './run-worlds';
export type { ScriptedNoiseSource } from './scripted-noise';
export {
  createScriptedModel,
  type ScriptedModelOptions,
  scriptedSystemSpec,
} from './scripted-systems';
export {
  DEFAULT_LIVE_ROSTER,
  defaultOfflineSettings,
  openAiCompatibleSystemSpec,
  openRouterSystemSpec,
  type PilotSettings,
} from './settings';
export { type LiveModelContext, modelsForManifest } from './system-models';
