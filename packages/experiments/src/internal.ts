/**
 * `@chi/experiments/internal`: what the repository's own packages share with the built-in
 * folders (the runner's smoke request and scripted systems, the imitator, tests). No stability
 * promise: a user imports `@chi/experiments`.
 *
 * @packageDocumentation
 */

export { matchTemplate, readBehaviorQuestion } from './behavior/question-reader';
export { behaviorQuestionSections, itemView, renderBehaviorQuestion } from './behavior/questions';
export {
  answerBehavioralItems,
  type ScriptedBehaviorPolicy,
  type ScriptedItem,
  solveItem,
} from './behavior/scripted';
export { type BuiltInScorerHost, defineBlockScorer } from './block-scorer';
export {
  type BuiltInRecords,
  type BuiltInSettings,
  blockWorld,
  memoryFileKey,
  memoryWorldKey,
  type ScriptedContext,
  type ScriptedNoise,
} from './built-in-experiment';
export { type HistoryProbeReading, readHistoryProbe } from './history/probe-reading';
export { renderHistoryProbe, renderHistoryUpdate } from './history/render';
export {
  answerHistoryQuestions,
  HISTORY_NOTES_HEADER,
  type ScriptedChoice,
  type ScriptedEvidence,
  type ScriptedHistoryPolicy,
  updateHistoryNotes,
} from './history/scripted';
export {
  encodeTranscript,
  memoryExperiment,
  memoryNotebookKey,
  probeBatchCount,
  REPLY_KEY_PREFIX,
} from './memory/experiment';
export {
  renderMemoryEncode,
  renderMemoryOracleProbe,
  renderMemoryProbe,
  renderMemoryReplayProbe,
} from './memory/render';
export { type IndexedMemoryWorld, isMemoryProbe, memoryScorer } from './memory/scorer';
export {
  answerMemoryQuestions,
  decayedRecall,
  decayedRecords,
  fadingRecall,
  loadOfRecordCount,
  MEMORY_NOTES_HEADER,
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
export { notesBlock, type RequestHeader, renderRequest, requestHeader } from './rendering';
export { scriptedArray, scriptedObject } from './scripted-blocks';
export { sharedRender } from './shared-renders';
