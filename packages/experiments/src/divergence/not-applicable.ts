import type { SystemSpec } from '@chi/spec';
import type { DivergenceArm } from './protocol';

/** A divergence arm the protocol does not run on a system, and why (published in divergence.json). */
export interface NotApplicableArm {
  readonly systemId: string;
  readonly arm: string;
  readonly reason: string;
}

type MemorySystem = Pick<SystemSpec, 'id' | 'memory' | 'instanceControl'>;

/**
 * Why an arm cannot run on a system, or null when it can. Under the notebook policy (the default)
 * every arm runs: the runner holds the notebook its operations act on. Under the `system` policy
 * the state is the system's own: the swap, erasure and sham-erasure arms need the instance-control
 * extension (export, import, erase) and are not applicable without it; the reversible fault is
 * never applicable (it corrupts the state a probe reads, and a system's own state is opaque to the
 * runner: the extension moves it, it does not edit it). Never faked: an arm that is not applicable
 * is not sent, and every series and dynamic that reads it is null with this reason.
 */
export function notApplicableReason(system: MemorySystem, arm: DivergenceArm): string | null {
  if (system.memory !== 'system') return null;
  const kind = arm.operation.kind;
  if (kind === 'fault')
    return 'not applicable under memory policy system: the reversible fault corrupts the state a probe reads, and a system-held memory is opaque to the runner';
  if (kind !== 'swap' && kind !== 'erase' && kind !== 'sham-erase') return null;
  if (system.instanceControl !== undefined) return null;
  const what = kind === 'swap' ? 'swap' : kind === 'erase' ? 'erasure' : 'sham erasure';
  return `not applicable under memory policy system: the system declares no instance-control extension (export, import, erase), so its ${what} cannot be performed on the memory it holds`;
}

/** Every (system, arm) the protocol does not run, in manifest order (systems, then arms). */
export function notApplicableArms(
  systems: readonly MemorySystem[],
  arms: readonly DivergenceArm[],
): NotApplicableArm[] {
  return systems.flatMap((system) =>
    arms.flatMap((arm) => {
      const reason = notApplicableReason(system, arm);
      return reason === null ? [] : [{ systemId: system.id, arm: arm.id, reason }];
    }),
  );
}
