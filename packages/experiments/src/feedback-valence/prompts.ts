import type { ExperimentPromptTemplate } from '@chi/experiment';

// The prompt templates of feedback valence, declared by the module (`Experiment.promptTemplates`).
// The text is the template file's bytes: its SHA-256 is what `manifest.prompts` freezes (a new
// text needs a new version). A run renders from its frozen copy, never from these constants.

/** `valence-feedback@1`: the review of earlier work, to which the system writes notes. */
export const VALENCE_FEEDBACK_PROMPT: ExperimentPromptTemplate = {
  name: 'valence-feedback',
  version: '1',
  sections: ['system', 'user'],
  text: `[system]
You work on a project over several conversations. Follow the reply format exactly.
[user]
{{REQUEST_BLOCK}}

Earlier in this project you delivered {{WORK}}. {{REVIEWER}} has reviewed it; the review is below.

{{REVIEW_BLOCK}}

Write the notes you want to keep for the rest of the project. A later conversation sees only these notes (your whole reply), not this review.
`,
};

/** `valence-choice@1`: the later choices, with only the notes. */
export const VALENCE_CHOICE_PROMPT: ExperimentPromptTemplate = {
  name: 'valence-choice',
  version: '1',
  sections: ['system', 'user', 'sure', 'gamble'],
  text: `[system]
You work on a project over several conversations. Follow the reply format exactly.
[user]
{{REQUEST_BLOCK}}

You are continuing the same project. The NOTES block holds the notes you wrote earlier. For each choice pick option a or b; the points are credited to the project.

{{NOTES_BLOCK}}

{{CHOICES_BLOCK}}

Reply with a JSON array: [{"id": "c1", "option": "a" or "b"}, ...], one entry per choice.
[sure]
{{POINTS}} points for sure
[gamble]
a 50% chance of {{POINTS}} points, otherwise nothing
`,
};
