import { type PromptSet, type RenderedMessages, renderJsonBlock } from '@chi/experiment';
import type { HistoryEnvironment, HistoryEvidence, HistoryStep } from '@chi/spec/internal';
import { type MemoryPolicy, policyTemplate } from '../memory-policy';
import { requestHeader as header, notesBlock, renderRequest as render } from '../rendering';

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
