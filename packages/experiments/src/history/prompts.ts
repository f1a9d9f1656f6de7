import { SYSTEM_POLICY_TEMPLATES } from '../memory-policy';

// The prompt templates of the history experiment. Their bytes are still the pilot's packaged
// files (`packages/pilot/prompts/history-*.txt`, frozen into `manifest.prompts`): moving them
// here would change what `loadPromptTemplates()` of `@chi/pilot` returns and the packaged prompt
// folder, so it waits for the prompt folder's own move. The scripted policies read only the
// prompts' JSON blocks, never a template.

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
