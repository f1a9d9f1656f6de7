import type { PromptSet, RenderedMessages } from '@chi/experiment';
import type { HistoryEvidence, HistoryStep } from '@chi/spec/internal';
import { renderHistoryProbe, renderHistoryUpdate } from '../history/render';
import type { MemoryPolicy } from '../memory-policy';
import type { ArmCall } from './protocol';
import type { DivergenceWorld } from './world';

/** The history step an update call shows (the history renderers' `step`). */
export function divergenceStepOf(call: ArmCall, world: DivergenceWorld): HistoryStep {
  const event = call.event;
  const step = (kind: HistoryStep['kind'], evidence: readonly HistoryEvidence[]): HistoryStep => ({
    checkpoint: call.checkpoint,
    kind,
    evidence: [...evidence],
  });
  if (event === null || event.kind === 'maintenance') return step('maintenance', []);
  if (event.kind === 'exposure') return step('ingest', world.exposure[event.history]);
  if (event.kind === 'washout') return step('ingest', world.washoutEvidence[event.index] ?? []);
  // The matched update has the correction's form (kind, dates, sources, trials); only its
  // direction differs, so the control differs from the intervention in content alone.
  return step('correction', event.kind === 'correction' ? world.correctionA : world.matchedA);
}

/**
 * The messages of one divergence call: the pilot's history prompts over the world's fixed probe
 * panel, showing `notes` (what the harness put in front of the call, after any operation).
 */
export function renderDivergenceCall(args: {
  readonly prompts: PromptSet;
  readonly world: DivergenceWorld;
  readonly call: ArmCall;
  readonly notes: string;
  readonly nonce: string;
  readonly notebookCapBytes: number;
  /** Who holds the memory (default `notebook`): under `system` the wording names no notebook. */
  readonly policy?: MemoryPolicy;
}): RenderedMessages {
  const { call, world, notes, nonce } = args;
  const policy = args.policy ?? 'notebook';
  return call.role === 'probe'
    ? renderHistoryProbe(args.prompts, { environments: world.panel, notes, nonce, policy })
    : renderHistoryUpdate(args.prompts, {
        environments: world.panel,
        notes,
        step: divergenceStepOf(call, world),
        nonce,
        notebookCapBytes: args.notebookCapBytes,
        policy,
      });
}
