import type { ExperimentPromptTemplate } from '@chi/experiment';
import { SYSTEM_POLICY_TEMPLATES } from '../memory-policy';

// The prompt templates of the memory experiment, declared by the module (`promptTemplates`).
// The text is the former packaged file's bytes (`packages/pilot/prompts/<name>@<version>.txt`):
// its SHA-256 is what `manifest.prompts` freezes (`registry.test.ts` pins it; a new text needs a
// new version). A run renders from its frozen copy, never from these constants.

/** `memory-encode@1`: the encode request: the system reads the records and writes its notebook. */
export const MEMORY_ENCODE_PROMPT: ExperimentPromptTemplate = {
  name: 'memory-encode',
  version: '1',
  text: `TASK: write notes for later recall.

Below is a set of records. Write notes to an external notebook. Later, in a fresh conversation that does not include this message, you will receive only your notes and some questions, and you must answer from the notes alone. The records will not be shown again.

The notebook holds at most {{NOTEBOOK_CAP_BYTES}} bytes of UTF-8 text. If your notes are longer, the harness keeps only the longest beginning of them that fits (cut at a character boundary) and discards the rest. Put what matters most first.

Each record has a key, a value (eight hexadecimal characters), a source, an event time (UTC) and an authority (1 or 2). The value of a key is decided by these rules:
- Among the records of a key, authority 2 beats authority 1, whatever their times.
- Within the same authority, the record with the later event time wins.
- For a question "as of" a cutoff time, first keep only the records of the key whose event time is at or before the cutoff, then apply the two rules above.
- If no record qualifies, the answer is unknown.

You will later be asked questions of six kinds. You are not told which keys will be asked about.
1. The current value of a key.
2. The value of a key as of a past cutoff time.
3. The current value of a key together with the source of the record that supplies it.
4. The current value of a key that received an authoritative update.
5. The current value of a key that also has later records of lower authority, which must not override it.
6. A key that appears in no record at all; the correct answer is then unknown.
Every question asks for both the value and the source of the record that supplies the answer.

Reply with your notes only, as plain text. Do not answer any question now. Your whole reply is stored as the notebook, up to the cap.

{{REQUEST_BLOCK}}

{{RECORDS_BLOCK}}
`,
};

/** `memory-probe@1`: a probe batch answered from the notebook. */
export const MEMORY_PROBE_PROMPT: ExperimentPromptTemplate = {
  name: 'memory-probe',
  version: '1',
  text: `TASK: answer questions from your notes.

Earlier you read a set of records and wrote the notes in the NOTES block below. The records themselves are not available now: answer from the notes alone. The notes may be empty.

The value of a key is decided by these rules:
- Among the records of a key, authority 2 beats authority 1, whatever their times.
- Within the same authority, the record with the later event time wins.
- For a question with an "asOf" time, first keep only the records of the key whose event time is at or before that time, then apply the two rules above. A question with "asOf": null asks for the current value.
- If no record qualifies, or a key appears in no record, the answer is unknown.

Answer every question in the QUESTIONS block. Reply with a JSON array and nothing else. It must contain exactly one object per question, with exactly the fields "id", "value" and "source":
[{"id": "<question id>", "value": "<eight hexadecimal characters>", "source": "<source of the record that supplies the value>"}]
When the answer is unknown, or you do not know it, give JSON null for both fields: {"id": "<question id>", "value": null, "source": null}. Use every question id exactly once and add no other fields.

{{REQUEST_BLOCK}}

{{NOTES_BLOCK}}

{{QUESTIONS_BLOCK}}
`,
};

/** `memory-probe-oracle@1`: the oracle control: a probe batch answered from the ideal notes. */
export const MEMORY_PROBE_ORACLE_PROMPT: ExperimentPromptTemplate = {
  name: 'memory-probe-oracle',
  version: '1',
  text: `TASK: answer questions from the records.

The RECORDS block below contains the complete set of records. Answer from these records.

The value of a key is decided by these rules:
- Among the records of a key, authority 2 beats authority 1, whatever their times.
- Within the same authority, the record with the later event time wins.
- For a question with an "asOf" time, first keep only the records of the key whose event time is at or before that time, then apply the two rules above. A question with "asOf": null asks for the current value.
- If no record qualifies, or a key appears in no record, the answer is unknown.

Answer every question in the QUESTIONS block. Reply with a JSON array and nothing else. It must contain exactly one object per question, with exactly the fields "id", "value" and "source":
[{"id": "<question id>", "value": "<eight hexadecimal characters>", "source": "<source of the record that supplies the value>"}]
When the answer is unknown, or you do not know it, give JSON null for both fields: {"id": "<question id>", "value": null, "source": null}. Use every question id exactly once and add no other fields.

{{REQUEST_BLOCK}}

{{RECORDS_BLOCK}}

{{QUESTIONS_BLOCK}}
`,
};

/** `memory-probe-replay@1`: the transcript-replay baseline: a probe batch answered from the whole encode transcript. */
export const MEMORY_PROBE_REPLAY_PROMPT: ExperimentPromptTemplate = {
  name: 'memory-probe-replay',
  version: '1',
  text: `TASK: answer questions from the stored transcript of an earlier session.

The TRANSCRIPT block below is the complete stored transcript of an earlier session: every message you were sent and the reply you wrote, in order, each with its speaker (system, user, or assistant for your own reply) and its text. Answer from this transcript.

The value of a key is decided by these rules:
- Among the records of a key, authority 2 beats authority 1, whatever their times.
- Within the same authority, the record with the later event time wins.
- For a question with an "asOf" time, first keep only the records of the key whose event time is at or before that time, then apply the two rules above. A question with "asOf": null asks for the current value.
- If no record qualifies, or a key appears in no record, the answer is unknown.

Answer every question in the QUESTIONS block. Reply with a JSON array and nothing else. It must contain exactly one object per question, with exactly the fields "id", "value" and "source":
[{"id": "<question id>", "value": "<eight hexadecimal characters>", "source": "<source of the record that supplies the value>"}]
When the answer is unknown, or you do not know it, give JSON null for both fields: {"id": "<question id>", "value": null, "source": null}. Use every question id exactly once and add no other fields.

{{REQUEST_BLOCK}}

{{TRANSCRIPT_BLOCK}}

{{QUESTIONS_BLOCK}}
`,
};

/** `memory-encode-system@1`: the encode request for a system that keeps its own memory. */
export const MEMORY_ENCODE_SYSTEM_PROMPT: ExperimentPromptTemplate = {
  name: 'memory-encode-system',
  version: '1',
  text: `TASK: remember a set of records for later recall.

Below is a set of records. Keep in your own memory whatever you need to answer questions about them later. The harness keeps nothing for you: later, in fresh conversations that do not include this message, you will receive only questions, and you must answer from what your memory retained. The records will not be shown again.

Each record has a key, a value (eight hexadecimal characters), a source, an event time (UTC) and an authority (1 or 2). The value of a key is decided by these rules:
- Among the records of a key, authority 2 beats authority 1, whatever their times.
- Within the same authority, the record with the later event time wins.
- For a question "as of" a cutoff time, first keep only the records of the key whose event time is at or before the cutoff, then apply the two rules above.
- If no record qualifies, the answer is unknown.

You will later be asked questions of six kinds. You are not told which keys will be asked about.
1. The current value of a key.
2. The value of a key as of a past cutoff time.
3. The current value of a key together with the source of the record that supplies it.
4. The current value of a key that received an authoritative update.
5. The current value of a key that also has later records of lower authority, which must not override it.
6. A key that appears in no record at all; the correct answer is then unknown.
Every question asks for both the value and the source of the record that supplies the answer.

Do not answer any question now. Reply with a short plain-text acknowledgement; the harness does not show your reply to any later conversation.

{{REQUEST_BLOCK}}

{{RECORDS_BLOCK}}
`,
};

/** `memory-probe-system@1`: a probe batch for a system that keeps its own memory. */
export const MEMORY_PROBE_SYSTEM_PROMPT: ExperimentPromptTemplate = {
  name: 'memory-probe-system',
  version: '1',
  text: `TASK: answer questions from your memory.

Earlier you may have been shown a set of records. They are not available now, and the harness carries no notes for you: answer from what your own memory retained. Your memory may hold nothing.

The value of a key is decided by these rules:
- Among the records of a key, authority 2 beats authority 1, whatever their times.
- Within the same authority, the record with the later event time wins.
- For a question with an "asOf" time, first keep only the records of the key whose event time is at or before that time, then apply the two rules above. A question with "asOf": null asks for the current value.
- If no record qualifies, or a key appears in no record, the answer is unknown.

Answer every question in the QUESTIONS block. Reply with a JSON array and nothing else. It must contain exactly one object per question, with exactly the fields "id", "value" and "source":
[{"id": "<question id>", "value": "<eight hexadecimal characters>", "source": "<source of the record that supplies the value>"}]
When the answer is unknown, or you do not know it, give JSON null for both fields: {"id": "<question id>", "value": null, "source": null}. Use every question id exactly once and add no other fields.

{{REQUEST_BLOCK}}

{{QUESTIONS_BLOCK}}
`,
};

/** Every template of the memory experiment, as the module declares them. */
export const MEMORY_PROMPT_TEMPLATES: readonly ExperimentPromptTemplate[] = [
  MEMORY_ENCODE_PROMPT,
  MEMORY_PROBE_PROMPT,
  MEMORY_PROBE_ORACLE_PROMPT,
  MEMORY_PROBE_REPLAY_PROMPT,
  MEMORY_ENCODE_SYSTEM_PROMPT,
  MEMORY_PROBE_SYSTEM_PROMPT,
];

/** The templates only a run with the transcript-replay baseline uses. */
export const TRANSCRIPT_REPLAY_TEMPLATES: readonly string[] = [MEMORY_PROBE_REPLAY_PROMPT.name];

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
