/**
 * `@chi/experiments/internal`: what the repository's own packages share with the built-in
 * folders (the runner's smoke request and scripted systems, the imitator, tests). No stability
 * promise: a user imports `@chi/experiments`.
 *
 * @packageDocumentation
 */

export { matchTemplate, readBehaviorQuestion } from './behavior/question-reader';
export { behaviorQuestionSections, itemView, renderBehaviorQuestion } from './behavior/questions';
export { behaviorReportText } from './behavior/report';
export {
  answerBehavioralItems,
  type ScriptedBehaviorPolicy,
  type ScriptedItem,
  solveItem,
} from './behavior/scripted';
export type { BuiltInScorerHost } from './block-scorer';
export { type BuiltInRecords, memoryFileKey, memoryWorldKey } from './built-in-experiment';
export {
  DIVERGENCE_EXPERIMENT_ID,
  divergenceExperimentParams,
} from './divergence/experiment';
export {
  DIVERGENCE_INTERVAL_METHOD,
  DIVERGENCE_INTERVAL_METHOD_LABELS,
  type DivergenceIntervalMethod,
  LEGACY_DIVERGENCE_INTERVAL_METHOD,
} from './divergence/interval-method';
export { type DivergenceManifest, divergenceManifestOf } from './divergence/manifest';
export {
  type NotApplicableArm,
  notApplicableArms,
} from './divergence/not-applicable';
export { divergenceBlockId, planDivergenceWorld } from './divergence/plan';
export {
  type ArmCall,
  armCalls,
  DIVERGENCE_PROTOCOL_ID,
  type DivergenceArm,
  divergenceRequestsPerWorld,
} from './divergence/protocol';
export {
  type DivergenceCallLine,
  type DivergenceProbeScore,
  divergenceScorer,
  type NotebookOperation,
  probeScoreOf,
} from './divergence/scorer';
export { buildDivergenceWorld, type DivergenceWorld } from './divergence/world';
export { readHistoryProbe } from './history/probe-reading';
export { renderHistoryProbe, renderHistoryUpdate } from './history/render';
export { historyReportText } from './history/report';
export {
  HISTORY_NOTES_HEADER,
  type ScriptedChoice,
  type ScriptedHistoryPolicy,
} from './history/scripted';
export {
  memoryExperiment,
  memoryNotebookKey,
  probeBatchCount,
  REPLY_KEY_PREFIX,
} from './memory/experiment';
export { renderMemoryProbe } from './memory/render';
export { memoryReportText, memoryTaxonomyReportText } from './memory/report';
export { memoryScorer } from './memory/scorer';
export {
  answerMemoryQuestions,
  decayedRecall,
  fadingRecall,
  loadOfRecordCount,
  readMemoryNotes,
  type ScriptedAnswer,
  type ScriptedMemoryPolicy,
  type ScriptedQuestion,
  type ScriptedRecord,
  writeMemoryNotes,
} from './memory/scripted';
export {
  type MemoryPolicy,
  manifestPolicy,
  memoryPolicyOf,
  type PolicyTemplate,
  policyTemplate,
  SYSTEM_POLICY_TEMPLATES,
} from './memory-policy';
export {
  applyNotebookCap,
  corruptedNotebook,
  emptyNotebook,
  NOTEBOOK_CAP_BYTES,
  type NotebookContent,
  utf8ByteLength,
} from './notebook';
export { renderRequest, requestHeader } from './rendering';
export type { ExperimentReportText } from './report-text';
export { scriptedArray, scriptedObject } from './scripted-blocks';
