import type { ExperimentPromptTemplate } from '@chi/experiment';
import { SYSTEM_POLICY_TEMPLATES } from '../memory-policy';

// The prompt templates of the history experiment, declared by the module (`promptTemplates`).
// The text is the former packaged file's bytes (`packages/pilot/prompts/<name>@<version>.txt`):
// its SHA-256 is what `manifest.prompts` freezes (`registry.test.ts` pins it; a new text needs a
// new version). A run renders from its frozen copy, never from these constants.

/** `history-update@1`: an update session: the new evidence, written into the notebook. */
export const HISTORY_UPDATE_PROMPT: ExperimentPromptTemplate = {
  name: 'history-update',
  version: '1',
  text: `TASK: update your notebook.

You keep a notebook about several recurring choices. Each choice, listed in the CHOICES block, is between two options. Dated evidence says which option of a choice is more reliable. Evidence of kind "authoritative_correction" supersedes all earlier evidence about that choice.

Your notebook so far is in the NOTES block; it may be empty. The EVENT block says what happens now: either new evidence to take into account, or a maintenance pass with no new evidence, in which you keep the notebook accurate and may reorganise it.

Later, in fresh conversations that do not include this message, you will receive only your notebook and be asked, for each choice, which option is more reliable, or "unknown" when the evidence does not tell. Nothing else from this conversation will be available then.

Reply with the complete new notebook only, as plain text. Your whole reply replaces the old notebook. The notebook holds at most {{NOTEBOOK_CAP_BYTES}} bytes of UTF-8 text; if your reply is longer, only the longest beginning of it that fits (cut at a character boundary) is kept.

{{REQUEST_BLOCK}}

{{CHOICES_BLOCK}}

{{NOTES_BLOCK}}

{{EVENT_BLOCK}}
`,
};

/** `history-probe@1`: a probe session: the decisions, taken from the notebook. */
export const HISTORY_PROBE_PROMPT: ExperimentPromptTemplate = {
  name: 'history-probe',
  version: '1',
  text: `TASK: decide from your notebook.

Your notebook is in the NOTES block; it may be empty. It is the only information available. For each choice in the QUESTIONS block, say which of its two options is more reliable according to the evidence recorded in your notebook. Evidence of kind "authoritative_correction" supersedes all earlier evidence about that choice. When your notebook holds no evidence about a choice, answer "unknown".

Reply with a JSON array and nothing else. It must contain exactly one object per question, with exactly the fields "id" and "answer":
[{"id": "<question id>", "answer": "<one of the two options, exactly as written, or unknown>"}]
Use every question id exactly once and add no other fields.

{{REQUEST_BLOCK}}

{{NOTES_BLOCK}}

{{QUESTIONS_BLOCK}}
`,
};

/** `history-update-system@1`: an update session for a system that keeps its own memory. */
export const HISTORY_UPDATE_SYSTEM_PROMPT: ExperimentPromptTemplate = {
  name: 'history-update-system',
  version: '1',
  text: `TASK: take in evidence about recurring choices.

You keep track of several recurring choices. Each choice, listed in the CHOICES block, is between two options. Dated evidence says which option of a choice is more reliable. Evidence of kind "authoritative_correction" supersedes all earlier evidence about that choice.

The EVENT block says what happens now: either new evidence to take into account, or a maintenance pass with no new evidence, in which you keep what you remember accurate and may reorganise it.

Later, in fresh conversations that do not include this message, you will be asked, for each choice, which option is more reliable, or "unknown" when the evidence does not tell. The harness keeps nothing for you: nothing from this conversation will be shown then, so answer from what your own memory retained.

Reply with a short plain-text acknowledgement; the harness does not show your reply to any later conversation.

{{REQUEST_BLOCK}}

{{CHOICES_BLOCK}}

{{EVENT_BLOCK}}
`,
};

/** `history-probe-system@1`: a probe session for a system that keeps its own memory. */
export const HISTORY_PROBE_SYSTEM_PROMPT: ExperimentPromptTemplate = {
  name: 'history-probe-system',
  version: '1',
  text: `TASK: decide from your memory.

The harness carries no notes for you: what your own memory retained of earlier conversations is the only information available, and it may hold nothing. For each choice in the QUESTIONS block, say which of its two options is more reliable according to the evidence you remember. Evidence of kind "authoritative_correction" supersedes all earlier evidence about that choice. When you remember no evidence about a choice, answer "unknown".

Reply with a JSON array and nothing else. It must contain exactly one object per question, with exactly the fields "id" and "answer":
[{"id": "<question id>", "answer": "<one of the two options, exactly as written, or unknown>"}]
Use every question id exactly once and add no other fields.

{{REQUEST_BLOCK}}

{{QUESTIONS_BLOCK}}
`,
};

/** Every template of the history experiment, as the module declares them. */
export const HISTORY_PROMPT_TEMPLATES: readonly ExperimentPromptTemplate[] = [
  HISTORY_UPDATE_PROMPT,
  HISTORY_PROBE_PROMPT,
  HISTORY_UPDATE_SYSTEM_PROMPT,
  HISTORY_PROBE_SYSTEM_PROMPT,
];

/**
 * The templates a history request is rendered from (`./render.ts`): the update and probe under a
 * notebook, and their variants for a system that keeps its own memory.
 */
export const HISTORY_TEMPLATES: readonly string[] = [
  'history-update',
  'history-probe',
  SYSTEM_POLICY_TEMPLATES['history-update'],
  SYSTEM_POLICY_TEMPLATES['history-probe'],
];
