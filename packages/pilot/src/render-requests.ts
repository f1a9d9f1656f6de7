import type { RenderedMessages } from '@chi/experiment';
import { renderJsonBlock } from '@chi/experiment';
import {
  requestHeader as header,
  notesBlock,
  renderRequest as render,
} from '@chi/experiments/internal';
import type { ChatMessage, MemoryRecord } from '@chi/spec';
import type {
  BlindProbe,
  HistoryEnvironment,
  HistoryEvidence,
  HistoryStep,
} from '@chi/spec/internal';
import type { MemoryPolicy } from './memory-systems/instance-identity';
import { policyTemplate } from './memory-systems/policy-prompts';
import type { PromptSet } from './prompts';

// The experiment SPI's type (`@chi/experiment`), re-exported: `@chi/pilot` has always exported it.
export type { RenderedMessages } from '@chi/experiment';

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

function choiceView(environment: HistoryEnvironment) {
  return {
    id: environment.id,
    subject: environment.subject,
    options: [environment.labels.A, environment.labels.B],
  };
}

/** Evidence as a model sees it: option labels, never the internal A/B coordinates. */
function evidenceView(evidence: HistoryEvidence, environments: readonly HistoryEnvironment[]) {
  const environment = environments.find((candidate) => candidate.id === evidence.environmentId);
  const labelOf = (option: 'A' | 'B') => environment?.labels[option] ?? option;
  return {
    choice: evidence.environmentId,
    date: evidence.date,
    source: evidence.source,
    kind: evidence.kind,
    moreReliable: labelOf(evidence.favored),
    outcomes: [
      {
        option: labelOf('A'),
        trials: evidence.outcomes.A.trials,
        successes: evidence.outcomes.A.successes,
      },
      {
        option: labelOf('B'),
        trials: evidence.outcomes.B.trials,
        successes: evidence.outcomes.B.successes,
      },
    ],
  };
}

/**
 * A history notebook update (ingest, neutral maintenance or correction): only the previous notes
 * and the new event.
 */
export function renderHistoryUpdate(
  prompts: PromptSet,
  args: {
    environments: readonly HistoryEnvironment[];
    notes: string;
    step: HistoryStep;
    nonce: string;
    notebookCapBytes: number;
    /** Who holds the memory (default `notebook`): under `system` no notebook, cap or NOTES. */
    policy?: MemoryPolicy;
  },
): RenderedMessages {
  const event = {
    checkpoint: args.step.checkpoint,
    kind: args.step.kind,
    evidence: args.step.evidence.map((evidence) => evidenceView(evidence, args.environments)),
  };
  if (args.policy === 'system')
    return render(prompts, 'history_update', policyTemplate('history-update', 'system'), {
      REQUEST_BLOCK: header({ task: 'history_update', nonce: args.nonce }),
      CHOICES_BLOCK: renderJsonBlock('CHOICES', args.environments.map(choiceView)),
      EVENT_BLOCK: renderJsonBlock('EVENT', event),
    });
  return render(prompts, 'history_update', 'history-update', {
    NOTEBOOK_CAP_BYTES: String(args.notebookCapBytes),
    REQUEST_BLOCK: header({
      task: 'history_update',
      nonce: args.nonce,
      notebookCapBytes: args.notebookCapBytes,
    }),
    CHOICES_BLOCK: renderJsonBlock('CHOICES', args.environments.map(choiceView)),
    NOTES_BLOCK: notesBlock(args.notes),
    EVENT_BLOCK: renderJsonBlock('EVENT', event),
  });
}

/** A history probe clone: the notes and blind decision questions; its output never feeds back. */
export function renderHistoryProbe(
  prompts: PromptSet,
  args: {
    environments: readonly HistoryEnvironment[];
    notes: string;
    nonce: string;
    /** Who holds the memory (default `notebook`): under `system` no NOTES block. */
    policy?: MemoryPolicy;
  },
): RenderedMessages {
  const request = header({ task: 'history_probe', nonce: args.nonce });
  const questions = renderJsonBlock('QUESTIONS', args.environments.map(choiceView));
  if (args.policy === 'system')
    return render(prompts, 'history_probe', policyTemplate('history-probe', 'system'), {
      REQUEST_BLOCK: request,
      QUESTIONS_BLOCK: questions,
    });
  return render(prompts, 'history_probe', 'history-probe', {
    REQUEST_BLOCK: request,
    NOTES_BLOCK: notesBlock(args.notes),
    QUESTIONS_BLOCK: questions,
  });
}

/** The smoke request: one trivial question whose answer is in the prompt. Never scored. */
export function renderSmoke(prompts: PromptSet, args: { nonce: string }): RenderedMessages {
  return render(prompts, 'smoke', 'smoke', {
    REQUEST_BLOCK: header({ task: 'smoke', nonce: args.nonce }),
    QUESTIONS_BLOCK: renderJsonBlock('QUESTIONS', [
      { id: 'smoke-1', value: '0a1b2c3d', source: 'src-smoke' },
    ]),
  });
}
