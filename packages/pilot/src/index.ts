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
export { createProgressRenderer, type ProgressOutput } from './cli/progress';
export type {
  DivergenceAnalysis,
  DivergenceDynamic,
  DivergenceEstimate,
  DivergenceSeries,
  DivergenceSystemResult,
  ExcludedInstance,
} from './divergence/analyze';
export { type RunDivergenceOptions, runDivergenceProtocol } from './divergence/run';
export { type LiveModelContext, modelsForManifest } from './endpoints/system-models';
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
export { type PilotOutcome, type RunPilotOptions, runPilot } from './pilot';
export type { PilotSettings } from './pilot-settings';
export { formatPlanCost, planCost, type RunPlanCost, type SystemPlanCost } from './plan/plan-cost';
export { renderSmoke } from './plan/render-requests';
export { loadPromptTemplates } from './prompts';
export type { FrozenManifest } from './run-folder/manifest';
export {
  type CreateRunOptions,
  createRun,
  type PlannedRun,
  type PreparedRun,
  prepareRun,
  type RunHandle,
} from './run-folder/run-create';
export type { RunWorlds } from './run-folder/run-worlds';
export type { ExecuteOutcome, ExecuteRunOptions } from './runner/execute-options';
export { executeRun } from './runner/run-execute';
export type { ScriptedNoiseSource } from './scripted/scripted-noise';
export {
  createScriptedModel,
  type ScriptedModelOptions,
  scriptedSystemSpec,
} from './scripted/scripted-systems';
export {
  DEFAULT_LIVE_ROSTER,
  defaultOfflineSettings,
  openAiCompatibleSystemSpec,
  openRouterSystemSpec,
} from './settings';
