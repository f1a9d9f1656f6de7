import { type PromptSet, type RenderedMessages, renderJsonBlock } from '@chi/experiment';
import type { ChatMessage, MemoryRecord } from '@chi/spec';
import type { BlindProbe } from '@chi/spec/internal';
import { type MemoryPolicy, policyTemplate } from '../memory-policy';
import { requestHeader as header, notesBlock, renderRequest as render } from '../rendering';

/** Records as the encoder (or the oracle control) sees them: the five registered fields only. */
function recordView(record: MemoryRecord) {
  return {
    key: record.key,
    value: record.value,
    source: record.source,
    eventTime: record.eventTime,
    authority: record.authority,
  };
}

function probeView(probe: BlindProbe) {
  return { id: probe.id, key: probe.key, asOf: probe.asOf };
}

/**
 * The memory encode request: all records, the six question categories, never the questions.
 */
export function renderMemoryEncode(
  prompts: PromptSet,
  args: {
    records: readonly MemoryRecord[];
    nonce: string;
    notebookCapBytes: number;
    /** Who holds the memory (default `notebook`): under `system` no notebook or cap is stated. */
    policy?: MemoryPolicy;
  },
): RenderedMessages {
  const records = renderJsonBlock('RECORDS', args.records.map(recordView));
  if (args.policy === 'system')
    return render(prompts, 'memory_encode', policyTemplate('memory-encode', 'system'), {
      REQUEST_BLOCK: header({ task: 'memory_encode', nonce: args.nonce }),
      RECORDS_BLOCK: records,
    });
  return render(prompts, 'memory_encode', 'memory-encode', {
    NOTEBOOK_CAP_BYTES: String(args.notebookCapBytes),
    REQUEST_BLOCK: header({
      task: 'memory_encode',
      nonce: args.nonce,
      notebookCapBytes: args.notebookCapBytes,
    }),
    RECORDS_BLOCK: records,
  });
}

/**
 * A read-only probe request: only the saved notes and blind questions (empty notes: blank
 * control). Under memory policy `system` no NOTES block: the system answers from its own memory.
 */
export function renderMemoryProbe(
  prompts: PromptSet,
  args: { notes: string; probes: readonly BlindProbe[]; nonce: string; policy?: MemoryPolicy },
): RenderedMessages {
  const questions = renderJsonBlock('QUESTIONS', args.probes.map(probeView));
  const request = header({ task: 'memory_probe', nonce: args.nonce });
  if (args.policy === 'system')
    return render(prompts, 'memory_probe', policyTemplate('memory-probe', 'system'), {
      REQUEST_BLOCK: request,
      QUESTIONS_BLOCK: questions,
    });
  return render(prompts, 'memory_probe', 'memory-probe', {
    REQUEST_BLOCK: request,
    NOTES_BLOCK: notesBlock(args.notes),
    QUESTIONS_BLOCK: questions,
  });
}

/**
 * The transcript-replay baseline: the stored transcript of the encode session (its messages and
 * the reply as written, uncapped) in place of the notes, with the same blind questions.
 */
export function renderMemoryReplayProbe(
  prompts: PromptSet,
  args: {
    transcript: readonly ChatMessage[];
    probes: readonly BlindProbe[];
    nonce: string;
  },
): RenderedMessages {
  return render(prompts, 'memory_probe', 'memory-probe-replay', {
    REQUEST_BLOCK: header({ task: 'memory_probe', nonce: args.nonce }),
    // `speaker`/`text`, not the chat API's `role`/`content`: "role" is internal vocabulary (record
    // roles) that never reaches a prompt.
    TRANSCRIPT_BLOCK: renderJsonBlock(
      'TRANSCRIPT',
      args.transcript.map((message) => ({ speaker: message.role, text: message.content })),
    ),
    QUESTIONS_BLOCK: renderJsonBlock('QUESTIONS', args.probes.map(probeView)),
  });
}

/** The oracle-evidence control: the original records in context with the same blind questions. */
export function renderMemoryOracleProbe(
  prompts: PromptSet,
  args: { records: readonly MemoryRecord[]; probes: readonly BlindProbe[]; nonce: string },
): RenderedMessages {
  return render(prompts, 'memory_probe_oracle', 'memory-probe-oracle', {
    REQUEST_BLOCK: header({ task: 'memory_probe_oracle', nonce: args.nonce }),
    RECORDS_BLOCK: renderJsonBlock('RECORDS', args.records.map(recordView)),
    QUESTIONS_BLOCK: renderJsonBlock('QUESTIONS', args.probes.map(probeView)),
  });
}
