/**
 * `@chi/experiment`: the experiment SPI (service provider interface), in the manner of
 * `@ai-sdk/provider`: the small, versioned interface an experiment module implements and the
 * report and runner call. It depends on `@chi/spec` (and zod) only. The contract suite is
 * `@chi/experiment/test`. Beside the interface, the pure rules every experiment plans and renders
 * with: `plannedRequest` and `requestNonce`, the prompt templates (`renderTemplate`,
 * `promptSections`) and the prompts' JSON blocks (`renderJsonBlock`, `extractJsonBlock`).
 *
 * @packageDocumentation
 */

export {
  type AnyExperiment,
  defineExperiment,
  type Experiment,
  type ExperimentHost,
  type ExperimentPromptTemplate,
  type ExperimentSettings,
  type NotesLookup,
  type PlanContext,
  type PlannedUnit,
  type PromptSet,
  type PromptTemplate,
  type RenderContext,
  type RenderedMessages,
} from './experiment';
export {
  AXES,
  type Axis,
  type AxisCoverage,
  type ExperimentDescriptor,
  type FeatureDeclaration,
  PANEL_SLOTS,
  type ParameterFlag,
  panelCoverage,
  parameterFlags,
  type SeedPassage,
  type SlotClaim,
} from './experiment-descriptor';
export {
  type AnyExperimentScorer,
  defineExperimentScorer,
  type ExperimentScorer,
  type ScorerBlockInput,
  type ScorerBlockResult,
  type ScorerBlocks,
  type ScorerCell,
  type ScorerEstimand,
  type ScorerHost,
  type ScorerRequest,
  type ScorerWorldInput,
  type ScorerWorldResult,
  scoresWorlds,
  type WorldScorer,
} from './experiment-scorer';
export { extractJsonBlock, jsonBlockIds, renderJsonBlock } from './json-blocks';
export { type PlannedRequestFields, plannedRequest, requestNonce } from './planned-request';
export {
  parsePromptTemplate,
  promptSections,
  renderTemplate,
  requireSection,
  requireTemplate,
} from './prompt-text';
