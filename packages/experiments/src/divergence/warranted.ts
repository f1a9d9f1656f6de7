import type { Option } from '@chi/spec/internal';
import type { DivergenceManifest } from './manifest';
import type { DivergenceArm } from './protocol';
import type { DivergenceWorld } from './world';

function opposite(option: Option): Option {
  return option === 'A' ? 'B' : 'A';
}

/**
 * The warranted answer per primary choice for an arm at a checkpoint: unknown before exposure;
 * then the direction of the arm's history (the last history it ingested); reversed from the
 * plasticity checkpoint on for the correction arm. Erasure does not change what is warranted:
 * the evidence was given, the notebook lost it.
 */
export function warrantedAnswers(
  world: DivergenceWorld,
  arm: DivergenceArm,
  checkpoint: number,
  manifest: Pick<DivergenceManifest, 'operations'>,
): (Option | 'unknown')[] {
  if (checkpoint === 0) return world.directionA.map(() => 'unknown');
  const direction = arm.history === 'A' ? world.directionA : world.directionA.map(opposite);
  const corrected =
    arm.operation.kind === 'correction' && checkpoint >= manifest.operations.plasticityAt;
  return direction.map((option) => (corrected ? opposite(option) : option));
}
