import {
  divergenceBlockId,
  divergenceManifestOf,
  divergenceRequestsPerWorld,
  planDivergenceWorld,
} from '@chi/experiments/internal';
import { PlannedRequestSchema } from '@chi/spec/internal';
import { describe, expect, it } from 'vitest';
import { prepareRun } from '../run-folder/run-create';
import { DIVERGENCE_REGISTRY, divergenceSettings } from './run';

const manifest = divergenceManifestOf(
  prepareRun({
    settings: divergenceSettings(1, { resamples: 10 }),
    experiments: DIVERGENCE_REGISTRY,
  }).frozen.manifest,
);
const seed = manifest.worldSeeds[0] as number;
const units = planDivergenceWorld(manifest, seed);
const requests = units.flatMap((unit) =>
  manifest.systems.flatMap((system) => unit.requestsFor(system.id)),
);

describe('the divergence protocol planned as runner blocks', () => {
  it('plans one valid block per instance with every call of every arm', () => {
    for (const request of requests) PlannedRequestSchema.parse(request);
    expect(requests).toHaveLength(divergenceRequestsPerWorld() * manifest.systems.length);
    expect(units).toHaveLength(manifest.arms.length * manifest.systems.length);
    const system = manifest.systems[0]?.id as string;
    const aSwap = requests.find(
      (r) =>
        r.blockId === divergenceBlockId(seed, 'A.swap', system) && r.step === 'A.swap.c2.update.0',
    );
    // Lockstep: the first call after the swap needs the partner's exposure notebook.
    expect(aSwap?.dependsOn).toEqual([
      `${system}.divergence.w${seed}.A.swap.c1.probe.1`,
      `${system}.divergence.w${seed}.B.swap.c1.update.0`,
    ]);
  });

  // That every call shows the notebook the sequential executor showed, with the same request IDs
  // and nonces, is checked on the runner against what the executor recorded: runner.test.ts.
});
