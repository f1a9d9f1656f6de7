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
export type { BuiltInScorerHost } from './block-scorer';
export { type BuiltInRecords, memoryFileKey, memoryWorldKey } from './built-in-experiment';
export { readHistoryProbe } from './history/probe-reading';
export { renderHistoryProbe, renderHistoryUpdate } from './history/render';
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
export { renderRequest, requestHeader } from './rendering';
export { scriptedArray, scriptedObject } from './scripted-blocks';
