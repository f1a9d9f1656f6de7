import { SYSTEM_POLICY_TEMPLATES } from '../memory-policy';

// The prompt templates of the memory experiment. Their bytes are still the pilot's packaged
// files (`packages/pilot/prompts/memory-*.txt`, frozen into `manifest.prompts`): moving them here
// would change what `loadPromptTemplates()` of `@chi/pilot` returns and the packaged prompt
// folder, so it waits for the prompt folder's own move. The scripted policies read only the
// prompts' JSON blocks, never a template.

/** The templates only a run with the transcript-replay baseline uses. */
export const TRANSCRIPT_REPLAY_TEMPLATES: readonly string[] = ['memory-probe-replay'];

/**
 * The templates a memory request is rendered from (`./render.ts`): the encode and the probes
 * under a notebook, the oracle control, the replay baseline, and the variants for a system that
 * keeps its own memory.
 */
export const MEMORY_TEMPLATES: readonly string[] = [
  'memory-encode',
  'memory-probe',
  'memory-probe-oracle',
  ...TRANSCRIPT_REPLAY_TEMPLATES,
  SYSTEM_POLICY_TEMPLATES['memory-encode'],
  SYSTEM_POLICY_TEMPLATES['memory-probe'],
];
