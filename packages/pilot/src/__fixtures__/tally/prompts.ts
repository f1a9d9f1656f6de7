import type { ExperimentPromptTemplate } from '@chi/experiment';

/** `tally@1`: the counting request (`[count]`) and the recall request (`[check]`). */
export const TALLY_PROMPT: ExperimentPromptTemplate = {
  name: 'tally',
  version: '1',
  sections: ['count', 'check'],
  text: `[count]
{{REQUEST_BLOCK}}

Count the red tokens below. Your whole reply becomes your notes for a later conversation.

{{TOKENS_BLOCK}}
[check]
{{REQUEST_BLOCK}}

{{NOTES_BLOCK}}

How many red tokens were there? Reply with one JSON object: {"red": <count>}.
`,
};
