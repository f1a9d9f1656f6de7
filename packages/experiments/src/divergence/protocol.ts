/**
 * The divergence protocol v0.1 (issue 19) as data: its checkpoints, its phases, the primary
 * checkpoint and the arms (instances) that run per world seed and system, with the notebook
 * operations each arm performs. Everything here is frozen into the protocol manifest before any
 * scored request; the analysis reads the checkpoints and the primary checkpoint from there.
 * Decisions and their reasons: docs/protocol.md, "The divergence protocol v0.1".
 */

/** The protocol's name, as `chi pilot --protocol` takes it. */
export const DIVERGENCE_PROTOCOL_ID = 'divergence-v0.1';

/** What happens to reach a checkpoint (the CHIS condition of its probe). */
export type DivergencePhase = 'baseline' | 'exposure' | 'washout' | 'later';

/** One checkpoint of the schedule. */
export interface DivergenceCheckpoint {
  readonly checkpoint: number;
  readonly phase: DivergencePhase;
}

/**
 * The checkpoints: 0 baseline (no evidence), 1 exposure (the instance's history), 2-4 washout
 * (common experience: evidence about three washout choices, one per checkpoint, identical for
 * every instance), 5-6 later checkpoints (one neutral maintenance invocation each).
 */
export const DIVERGENCE_CHECKPOINTS: readonly DivergenceCheckpoint[] = [
  { checkpoint: 0, phase: 'baseline' },
  { checkpoint: 1, phase: 'exposure' },
  { checkpoint: 2, phase: 'washout' },
  { checkpoint: 3, phase: 'washout' },
  { checkpoint: 4, phase: 'washout' },
  { checkpoint: 5, phase: 'later' },
  { checkpoint: 6, phase: 'later' },
];

/** The preregistered primary checkpoint: the last later checkpoint. */
export const DIVERGENCE_PRIMARY_CHECKPOINT = 6;

/** Number of washout checkpoints, and of washout choices (one ingested per washout checkpoint). */
export const WASHOUT_CHOICES = 3;

/**
 * Where the one-off operations of the arms happen (frozen in the manifest). Swap, erasure and
 * sham erasure act right after the exposure checkpoint's probe, before the washout; the fault
 * and the plasticity update act at the first later checkpoint.
 */
export const DIVERGENCE_OPERATION_CHECKPOINTS = {
  swapAfter: 1,
  erasureAfter: 1,
  faultAt: 5,
  plasticityAt: 5,
} as const;

/** The history an instance is exposed to, in the order it is ingested. */
export type ExposureOrder = readonly ('A' | 'B')[];

/** What an arm does to its notebook, beyond the common schedule. */
export type ArmOperation =
  | { readonly kind: 'none' }
  /** Exchange notebooks with `partner` after checkpoint `swapAfter`. */
  | { readonly kind: 'swap'; readonly partner: string }
  /** One neutral maintenance call after `erasureAfter`, then the notebook is emptied. */
  | { readonly kind: 'erase' }
  /** The same call, then the notebook from before the call is restored. */
  | { readonly kind: 'sham-erase' }
  /** The probe at `faultAt` reads a corrupted notebook; the next update reads the original. */
  | { readonly kind: 'fault' }
  /** At `plasticityAt` the update ingests the authoritative correction (reverses the history). */
  | { readonly kind: 'correction' }
  /** At `plasticityAt` the update ingests a matched confirming update (same form, no reversal). */
  | { readonly kind: 'matched-update' };

/** One instance of the protocol per world seed and system. */
export interface DivergenceArm {
  /** The instance's name, unique in a world: `A`, `B`, `A2`, `B2`, `A.swap`, ... */
  readonly id: string;
  /** The history that names its warranted answers (the last one ingested for two exposures). */
  readonly history: 'A' | 'B';
  readonly exposure: ExposureOrder;
  readonly operation: ArmOperation;
  /** What the arm is for, in one sentence (published in the manifest). */
  readonly purpose: string;
}

/** The arms, in the order they run within a world and system. */
export const DIVERGENCE_ARMS: readonly DivergenceArm[] = [
  arm('A', 'A', ['A'], { kind: 'none' }, 'different-history instance A'),
  arm('B', 'B', ['B'], { kind: 'none' }, 'different-history instance B'),
  arm('A2', 'A', ['A'], { kind: 'none' }, 'same-history control of A'),
  arm('B2', 'B', ['B'], { kind: 'none' }, 'same-history control of B'),
  arm(
    'A.swap',
    'A',
    ['A'],
    { kind: 'swap', partner: 'B.swap' },
    'history A, notebook exchanged with B.swap after exposure',
  ),
  arm(
    'B.swap',
    'B',
    ['B'],
    { kind: 'swap', partner: 'A.swap' },
    'history B, notebook exchanged with A.swap after exposure',
  ),
  arm('A.erase', 'A', ['A'], { kind: 'erase' }, 'history A, notebook erased after exposure'),
  arm('B.erase', 'B', ['B'], { kind: 'erase' }, 'history B, notebook erased after exposure'),
  arm('A2.erase', 'A', ['A'], { kind: 'erase' }, 'same-history control of A.erase'),
  arm('B2.erase', 'B', ['B'], { kind: 'erase' }, 'same-history control of B.erase'),
  arm('A.sham', 'A', ['A'], { kind: 'sham-erase' }, 'history A, sham erasure after exposure'),
  arm('B.sham', 'B', ['B'], { kind: 'sham-erase' }, 'history B, sham erasure after exposure'),
  arm('AB', 'B', ['A', 'B'], { kind: 'none' }, 'exposure A then B (hysteresis)'),
  arm('BA', 'A', ['B', 'A'], { kind: 'none' }, 'exposure B then A (hysteresis)'),
  arm('AB2', 'B', ['A', 'B'], { kind: 'none' }, 'same-path control of AB (hysteresis floor)'),
  arm('BA2', 'A', ['B', 'A'], { kind: 'none' }, 'same-path control of BA (hysteresis floor)'),
  arm('A.fault', 'A', ['A'], { kind: 'fault' }, 'history A, reversible notebook fault'),
  arm(
    'A.correct',
    'A',
    ['A'],
    { kind: 'correction' },
    'history A, authoritative correction (plasticity intervention)',
  ),
  arm(
    'A.matched',
    'A',
    ['A'],
    { kind: 'matched-update' },
    'history A, matched non-correcting update (plasticity control)',
  ),
  arm(
    'A.correct2',
    'A',
    ['A'],
    { kind: 'correction' },
    'second instance under the same correction (plasticity floor)',
  ),
  arm(
    'A.matched2',
    'A',
    ['A'],
    { kind: 'matched-update' },
    'second instance under the matched update (plasticity floor)',
  ),
];

function arm(
  id: string,
  history: 'A' | 'B',
  exposure: ExposureOrder,
  operation: ArmOperation,
  purpose: string,
): DivergenceArm {
  return { id, history, exposure, operation, purpose };
}

/** Finds an arm by ID; throws on an unknown one (a bug upstream, not data). */
export function divergenceArm(id: string): DivergenceArm {
  const found = DIVERGENCE_ARMS.find((candidate) => candidate.id === id);
  if (found === undefined) throw new Error(`unknown divergence arm ${JSON.stringify(id)}`);
  return found;
}

/** One model invocation of an arm at a checkpoint, in execution order. */
export interface ArmCall {
  readonly checkpoint: number;
  /** `update` writes the notebook; `operation` is the erasure/sham call; `probe` is read-only. */
  readonly role: 'update' | 'operation' | 'probe';
  /** For an update: what it ingests. */
  readonly event:
    | { readonly kind: 'exposure'; readonly history: 'A' | 'B' }
    | { readonly kind: 'washout'; readonly index: number }
    | { readonly kind: 'maintenance' }
    | { readonly kind: 'correction' }
    | { readonly kind: 'matched-update' }
    | null;
  /** For a probe: the CHIS condition it measures. */
  readonly condition: string | null;
}

/** The probe condition of a phase (CHIS condition semantics: the event processed to get here). */
function phaseCondition(phase: DivergencePhase): string {
  return phase === 'baseline'
    ? 'baseline'
    : phase === 'exposure'
      ? 'history'
      : phase === 'washout'
        ? 'washout'
        : 'neutral';
}

/**
 * The calls of one arm, in order. Every arm makes the same calls at the same checkpoints except
 * where its operation says otherwise: two-exposure arms probe after each exposure (so their paths
 * differ by condition, which hysteresis needs), erasure and sham arms make one extra identical
 * maintenance call after the exposure probe.
 */
export function armCalls(armSpec: DivergenceArm): ArmCall[] {
  const calls: ArmCall[] = [];
  const ops = DIVERGENCE_OPERATION_CHECKPOINTS;
  let washoutIndex = 0;
  for (const { checkpoint, phase } of DIVERGENCE_CHECKPOINTS) {
    if (phase === 'exposure') {
      armSpec.exposure.forEach((history, index) => {
        calls.push({
          checkpoint,
          role: 'update',
          event: { kind: 'exposure', history },
          condition: null,
        });
        const last = index === armSpec.exposure.length - 1;
        calls.push({
          checkpoint,
          role: 'probe',
          event: null,
          condition: last
            ? armSpec.exposure.length > 1
              ? 'history:both'
              : 'history'
            : `history:${history}`,
        });
      });
    } else {
      if (phase === 'washout') {
        calls.push({
          checkpoint,
          role: 'update',
          event: { kind: 'washout', index: washoutIndex },
          condition: null,
        });
        washoutIndex += 1;
      } else if (phase === 'later') {
        const special =
          checkpoint === ops.plasticityAt &&
          (armSpec.operation.kind === 'correction' || armSpec.operation.kind === 'matched-update');
        calls.push({
          checkpoint,
          role: 'update',
          event: special
            ? { kind: armSpec.operation.kind as 'correction' | 'matched-update' }
            : { kind: 'maintenance' },
          condition: null,
        });
      }
      const condition =
        checkpoint === ops.faultAt && armSpec.operation.kind === 'fault'
          ? 'fault'
          : checkpoint === ops.plasticityAt && armSpec.operation.kind === 'correction'
            ? 'intervention'
            : checkpoint === ops.plasticityAt && armSpec.operation.kind === 'matched-update'
              ? 'matched-update'
              : phaseCondition(phase);
      calls.push({ checkpoint, role: 'probe', event: null, condition });
    }
    if (
      checkpoint === ops.erasureAfter &&
      (armSpec.operation.kind === 'erase' || armSpec.operation.kind === 'sham-erase')
    ) {
      calls.push({
        checkpoint,
        role: 'operation',
        event: { kind: 'maintenance' },
        condition: null,
      });
    }
  }
  return calls;
}

/** Requests per world seed and system: the sum of every arm's calls. */
export function divergenceRequestsPerWorld(): number {
  return DIVERGENCE_ARMS.reduce((sum, armSpec) => sum + armCalls(armSpec).length, 0);
}
