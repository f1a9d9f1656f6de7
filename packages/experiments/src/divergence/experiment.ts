import { defineExperiment } from '@chi/experiment';
import { InvalidArgumentError, type PlannedRequest } from '@chi/spec';
import {
  type DivergenceExperimentParams,
  DivergenceExperimentParamsSchema,
} from '@chi/spec/internal';
import { generatorInfo } from '@chi/worlds';
import { z } from 'zod';
import type { BuiltInHost } from '../built-in-experiment';
import { manifestPolicy } from '../memory-policy';
import { DIVERGENCE_INTERVAL_METHOD } from './interval-method';
import { divergenceNotebookKey, planDivergenceWorld } from './plan';
import {
  type ArmCall,
  armCalls,
  DIVERGENCE_ARMS,
  DIVERGENCE_CHECKPOINTS,
  DIVERGENCE_OPERATION_CHECKPOINTS,
  DIVERGENCE_PRIMARY_CHECKPOINT,
  type DivergenceArm,
} from './protocol';
import { renderDivergenceCall } from './render';
import { buildDivergenceWorld } from './world';

/** The experiment ID of the divergence protocol, the key of its parameters in the manifest. */
export const DIVERGENCE_EXPERIMENT_ID = 'divergence';

/**
 * The protocol's preregistered parameters (checkpoints, primary checkpoint, operations, arms, and
 * the interval method).
 */
export function divergenceExperimentParams(): DivergenceExperimentParams {
  return {
    generator: generatorInfo(),
    checkpoints: DIVERGENCE_CHECKPOINTS.map((point) => ({ ...point })),
    primaryCheckpoint: DIVERGENCE_PRIMARY_CHECKPOINT,
    operations: { ...DIVERGENCE_OPERATION_CHECKPOINTS },
    arms: DIVERGENCE_ARMS.map((arm) => ({ ...arm, exposure: [...arm.exposure] })),
    intervalMethod: DIVERGENCE_INTERVAL_METHOD,
  };
}

const STEP = /^(.+)\.c(\d+)\.(update|operation|probe)\.(\d+)$/;

/**
 * The arm and the call a planned divergence request stands for, from its step
 * (`<arm>.c<checkpoint>.<role>.<index within the checkpoint>`, as `divergence/plan.ts` names it).
 */
export function divergenceCallOf(
  request: Pick<PlannedRequest, 'step' | 'requestId'>,
  params: Pick<DivergenceExperimentParams, 'arms'>,
): { readonly arm: DivergenceArm; readonly call: ArmCall } {
  const match = STEP.exec(request.step);
  const arm = params.arms.find((candidate) => candidate.id === match?.[1]);
  const call =
    match === null || arm === undefined
      ? undefined
      : armCalls(arm).filter((candidate) => candidate.checkpoint === Number(match[2]))[
          Number(match[4])
        ];
  if (arm === undefined || call === undefined || call.role !== match?.[3])
    throw new InvalidArgumentError(
      'request',
      `request ${request.requestId} has step ${JSON.stringify(request.step)}, which names no call of a divergence arm`,
    );
  return { arm, call };
}

/**
 * The divergence protocol (issue 19) as an experiment module: one block per instance (system,
 * world seed, arm), planned by `planDivergenceWorld`, rendered with the history prompts over the
 * world's fixed probe panel, one notebook per instance. Not a template of the default pilot: a
 * run includes it only when its registry is `[divergenceExperiment]` (its parameters sit in
 * `manifest.experiments.divergence`). docs/architecture.md, "The divergence protocol and the
 * shared runner", says what of the port this is.
 */
export const divergenceExperiment = defineExperiment<DivergenceExperimentParams, BuiltInHost>({
  specificationVersion: 'chi-experiment-v1',
  id: DIVERGENCE_EXPERIMENT_ID,
  title: 'Experience divergence (the v0.1 divergence protocol)',
  slots: [
    {
      // A CHIS trajectory experiment of the framework, not one of the 30 panel tests.
      axis: 'M',
      coverage: 'partial',
      what: 'excess divergence of different-history over same-history pairs with washout, later checkpoints, swap, erasure, sham erasure, a reversible fault and a correction control',
    },
  ],
  procedure:
    'Per world seed and system, independently initialized instances (arms) with histories A, B, same-history controls A2 and B2, swapped notebooks, erasure, sham erasure, reversed exposure order, a reversible fault and a correction against a matched update; after exposure a washout of common evidence and later checkpoints; every checkpoint asks the same blind probe panel from the notebook.',
  taskScore:
    'Per probe: accuracy, explicit-unknown and invalid rates on the primary choices against the warranted answers, and the share of washout choices answered as the common evidence favors.',
  features: [
    {
      id: 'divergence-decisions',
      version: 1,
      features: ['env-1', 'env-2', 'env-3', 'env-4'],
      coding: 'The primary choices of a probe: A = 0, unknown = 0.5, B = 1, invalid = null.',
      schema: z.array(z.union([z.literal(0), z.literal(0.5), z.literal(1)]).nullable()).length(4),
    },
  ],
  control:
    'Same-history pairs (A with A2, B with B2), sham erasure for erasure, the matched update for the correction.',
  seedPassages: [
    {
      source: 'framework',
      quote:
        'The primary quantity is the distance between different-history pairs minus the corresponding distance between same-history control pairs',
    },
  ],
  parameters: DivergenceExperimentParamsSchema,
  kinds: ['divergence'],
  tasks: ['divergence_update', 'divergence_probe'],
  parametersFrom: () => divergenceExperimentParams(),
  parametersOf: (manifest) => manifest.experiments.divergence ?? null,
  plan: ({ manifest, params, worldSeed }) =>
    planDivergenceWorld({ ...params, systems: manifest.systems }, worldSeed),
  render: ({ request, manifest, params, prompts, notes }) => {
    const { arm, call } = divergenceCallOf(request, params);
    return renderDivergenceCall({
      prompts,
      world: buildDivergenceWorld(request.worldSeed),
      call,
      notes: notes(request.systemId, divergenceNotebookKey(request.worldSeed, arm.id)),
      nonce: request.nonce,
      notebookCapBytes: manifest.notebookCapBytes,
      policy: manifestPolicy(manifest, request.systemId),
    });
  },
  notebookKey: (request) => {
    const arm = STEP.exec(request.step)?.[1];
    if (arm === undefined)
      throw new InvalidArgumentError(
        'request',
        `step ${JSON.stringify(request.step)} names no divergence arm`,
      );
    return divergenceNotebookKey(request.worldSeed, arm);
  },
  startingNotebooks: (manifest) =>
    manifest.worldSeeds.flatMap((seed) =>
      (manifest.experiments.divergence?.arms ?? []).map((arm) =>
        divergenceNotebookKey(seed, arm.id),
      ),
    ),
});
